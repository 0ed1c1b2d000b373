"""Where two runs' agents first did something different for a case: the first tool call
(name and arguments) at which their trajectories part."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.outcomes import ToolCall, ToolStep, Trajectory


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class DivergedCall(_Frozen):
    """What one run's agent did at the point of divergence: the tool call it executed."""

    step: int = Field(description="The call's step in its trajectory, numbered from 1")
    tool: str
    arguments: dict[str, Any] | None = Field(
        default=None, description="The call's arguments; null when they could not be read"
    )
    raw_arguments: str | None = Field(
        default=None, description="The text sent as arguments, when it was not a JSON object"
    )
    status: str = Field(description="How the execution ended: ok, refused, error, ...")


class Divergence(_Frozen):
    """The first tool call at which two trajectories' sequences of (tool name, arguments)
    differ, and what each run did there (null: it made no further call)."""

    call: int = Field(
        description="The position of the first differing call among each trajectory's "
        "tool calls, numbered from 1"
    )
    baseline: DivergedCall | None
    candidate: DivergedCall | None


def _key(call: ToolCall) -> tuple[str, Any]:
    """What makes two calls the same: the tool and its arguments (their raw text when they
    could not be read)."""
    return call.name, call.arguments if call.arguments is not None else call.raw_arguments


def _side(found: tuple[int, ToolStep] | None) -> DivergedCall | None:
    if found is None:
        return None
    step, executed = found
    return DivergedCall(
        step=step,
        tool=executed.tool,
        arguments=executed.call.arguments,
        raw_arguments=executed.call.raw_arguments if executed.call.arguments is None else None,
        status=executed.status,
    )


def divergence(baseline: Trajectory | None, candidate: Trajectory | None) -> Divergence | None:
    """Where ``baseline`` and ``candidate`` first differ in the tool calls they executed
    (name and arguments, in order); None when they made the same calls or either run
    recorded no trajectory."""
    if baseline is None or candidate is None:
        return None
    before, after = baseline.numbered_tool_steps, candidate.numbered_tool_steps
    for i in range(max(len(before), len(after))):
        b = before[i] if i < len(before) else None
        c = after[i] if i < len(after) else None
        if b is None or c is None or _key(b[1].call) != _key(c[1].call):
            return Divergence(call=i + 1, baseline=_side(b), candidate=_side(c))
    return None


def divergence_text(d: Divergence) -> str:
    """'call 2: baseline step 4 issue_refund {"order": "o1"} (error); candidate step 4
    cancel_order {"order": "o1"} (ok)'."""
    return f"call {d.call}: baseline {_said(d.baseline)}; candidate {_said(d.candidate)}"


def _said(side: DivergedCall | None) -> str:
    if side is None:
        return "made no further call"
    if side.arguments is not None:
        args = json.dumps(side.arguments, sort_keys=True, ensure_ascii=False)
    else:
        args = f"(unreadable arguments: {side.raw_arguments or ''})"
    return f"step {side.step} {side.tool} {args} ({side.status})"
