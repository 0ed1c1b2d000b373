"""The diagnosis rules for an agent's failed case-trial, read off its trajectory: the step
behind the failure (docs/diagnose.md, "Agents").

Tried in order; the first that applies decides:

1. ``step-limit``: the loop stopped at the step limit → generation (the model did not
   converge), at the last step.
2. ``tool-error-ignored``: a tool step failed (error, refused, malformed, unknown tool),
   no later call of that tool succeeded, and the agent answered → tool handling, at the
   failed step.
3. ``wrong-tool``: a call the case forbids (``tool_not_called``, past ``max_calls``, after
   a refusal) → tool handling, at that call.
4. ``missing-call``: a call the case expects was not made (``tool_called``,
   ``calls_in_order``) → tool handling.
5. ``state-contradiction``: the state after differs from the case's ``state_equals`` while
   the agent answered → tool handling, at the answer.
6. ``too-many-steps``: more model turns than the case's ``max_steps`` → generation, at
   the first turn past it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from assay.cases import Case
from assay.diagnose._evidence import Verdict, got
from assay.diagnose._expect import (
    forbidden_calls,
    missing_calls,
    state_contradictions,
    too_many_turns,
)
from assay.outcomes import Answer, Record, ToolStep, Trajectory

AgentRule = Callable[[Case, Record, Trajectory], Verdict | None]


def _where(number: int) -> str:
    return f"step {number} (tool execution)"


def _tool_text(step: ToolStep) -> str:
    call = step.call
    if call.arguments is not None:
        shown = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
        return f"{step.tool} {shown}" if call.arguments else step.tool
    return f"{step.tool} (unreadable arguments: {call.raw_arguments or ''})"


def _answer_step(trajectory: Trajectory) -> int | None:
    """The number of the last model turn (the answer), when the trajectory has one."""
    found = trajectory.model_turn_numbers
    return found[-1] if found else None


def _step_limit(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    if trajectory.ended != "step_limit":
        return None
    steps = len(trajectory.steps)
    names = [s.tool for s in trajectory.tool_steps]
    repeated = sorted({n for n in names if names.count(n) > 1})
    evidence = [
        f"outcome: {got(record)}",
        f"the loop stopped at the step limit after {steps} steps",
    ]
    if repeated:
        evidence.append(f"tools called more than once: {', '.join(repeated)}")
    failed = [s for s in trajectory.tool_steps if s.failed]
    if failed:
        evidence.append(f"{len(failed)} tool call(s) failed on the way")
    return Verdict(
        "generation",
        tuple(evidence),
        "Read the trajectory (assay trace RUN CASE): find where the model repeats itself or "
        "ignores a tool's answer; tighten the prompt or the tool's description, or give "
        "the loop the steps the task needs.",
        "step-limit",
        steps or None,
    )


def _tool_error_ignored(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    if not isinstance(record.outcome, Answer):
        return None
    numbered = trajectory.numbered_tool_steps
    for n, step in numbered:
        if not step.failed:
            continue
        if any(later.tool == step.tool and not later.failed for m, later in numbered if m > n):
            continue  # retried and done
        detail = f": {step.error}" if step.error else ""
        evidence = [
            f"outcome: {got(record)}",
            f"{_where(n)}: {_tool_text(step)} ended {step.status}{detail}",
            f"no later call of {step.tool} succeeded, yet the agent answered",
        ]
        if record.outcome.text:
            evidence.append(f"the answer says: {record.outcome.text!r}")
        return Verdict(
            "tool_handling",
            tuple(evidence),
            f"Make the reply report the {step.tool} result (its status), never the request: "
            "a failed or refused call must be reported as such, or retried.",
            "tool-error-ignored",
            n,
        )
    return None


def _wrong_tool(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    found = forbidden_calls(case, trajectory)
    if not found:
        return None
    first = found[0]
    evidence = [f"outcome: {got(record)}"]
    evidence += [f"{_where(m.step)}: {m.what}" if m.step else m.what for m in found]
    return Verdict(
        "tool_handling",
        tuple(evidence),
        "Make the tool's description (or the prompt) say when it must not be used; check "
        "which tools the model is offered for this case.",
        "wrong-tool",
        first.step,
    )


def _missing_call(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    found = missing_calls(case, trajectory)
    if not found:
        return None
    evidence = [f"outcome: {got(record)}"]
    evidence += [m.what if m.step is None else f"{_where(m.step)}: {m.what}" for m in found]
    return Verdict(
        "tool_handling",
        tuple(evidence),
        "Check that the expected tool is offered and described so the model picks it for "
        "this request; read the model turns before the answer (assay trace RUN CASE).",
        "missing-call",
        found[0].step,
    )


def _state_contradiction(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    if not isinstance(record.outcome, Answer):
        return None
    differences = state_contradictions(case, trajectory)
    if not differences:
        return None
    at = _answer_step(trajectory)
    where = f"the answer (step {at})" if at is not None else "the answer"
    return Verdict(
        "tool_handling",
        (f"outcome: {got(record)}", *differences, f"{where} claims otherwise"),
        "The answer claims what the state does not show: make the reply follow the tools' "
        "results, and check the tool that should have changed the state.",
        "state-contradiction",
        at,
    )


def _too_many_steps(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    found = too_many_turns(case, trajectory)
    if found is None:
        return None
    limit, missed = found
    turns = len(trajectory.model_turn_numbers)
    said = f"{turns} model turns, more than the case's max_steps {limit}"
    return Verdict(
        "generation",
        (f"outcome: {got(record)}", said),
        "Read the trajectory (assay trace RUN CASE) for repeated or needless calls.",
        "too-many-steps",
        missed.step,
    )


AGENT_RULES: tuple[AgentRule, ...] = (
    _step_limit,
    _tool_error_ignored,
    _wrong_tool,
    _missing_call,
    _state_contradiction,
    _too_many_steps,
)


def agent_verdict(case: Case, record: Record, trajectory: Trajectory) -> Verdict | None:
    """The first agent rule's verdict on a failed case-trial; None when none applies."""
    for rule in AGENT_RULES:
        verdict = rule(case, record, trajectory)
        if verdict is not None:
            return verdict
    return None
