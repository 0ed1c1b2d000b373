"""An agent's trajectory step by step, as ``assay trace`` prints it and the viewer's case
page shows it: each model turn and tool execution with its arguments, result or error,
numbered from 1, between the state before and the state after."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from assay.outcomes import ModelStep, ToolCall, Trajectory

_ENDED = {
    "answered": "the model answered",
    "step_limit": "stopped at the step limit",
    "model_error": "a model call failed",
    "timeout": "a step ran out of time",
}


class StepView(NamedTuple):
    """One step as shown: its number, ``model`` or the tool's status, a head line and
    (label, text) items."""

    number: int
    status: str
    head: str
    items: tuple[tuple[str, str], ...]


def shown(value: Any) -> str:
    """A value as text: a string as it is, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


def call_text(call: ToolCall) -> str:
    """``name {"arg": 1}``, or the raw text of arguments that could not be read."""
    if call.arguments is not None:
        return f"{call.name} {json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)}"
    return f"{call.name} (unreadable arguments: {call.raw_arguments or ''})"


def step_views(trajectory: Trajectory) -> list[StepView]:
    """Every step of ``trajectory`` as shown, in order."""
    views = []
    for number, step in enumerate(trajectory.steps, start=1):
        if isinstance(step, ModelStep):
            finish = f" (finish reason {step.finish_reason})" if step.finish_reason else ""
            items = [("says", step.text)] if step.text else []
            items += [("calls", call_text(c)) for c in step.tool_calls]
            views.append(StepView(number, "model", f"step {number} · model{finish}", tuple(items)))
            continue
        items = [("arguments", call_text(step.call))]
        if step.result is not None:
            items.append(("result", shown(step.result)))
        if step.error:
            items.append(("error", step.error))
        head = f"step {number} · tool {step.tool} · {step.status}"
        views.append(StepView(number, step.status, head, tuple(items)))
    return views


def ended_text(trajectory: Trajectory) -> str:
    """Why the loop stopped, in words."""
    return _ENDED.get(trajectory.ended, trajectory.ended)


def trajectory_lines(trajectory: Trajectory) -> list[str]:
    """The trajectory as lines of text: the state before, each step with its items
    indented, the state after and why the loop stopped."""
    lines: list[str] = []
    if trajectory.state_before is not None:
        lines += ["state before:", *_indented(shown(trajectory.state_before))]
    for view in step_views(trajectory):
        lines.append(view.head)
        for label, text in view.items:
            first, *rest = text.split("\n")
            lines.append(f"    {label}: {first}")
            lines += [f"    {'':{len(label)}}  {line}" for line in rest]
    if trajectory.state_after is not None:
        lines += ["state after:", *_indented(shown(trajectory.state_after))]
    lines.append(f"ended: {ended_text(trajectory)}")
    return lines


def _indented(text: str) -> list[str]:
    return [f"    {line}" for line in text.split("\n")]
