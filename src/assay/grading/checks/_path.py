"""The ``path_matches`` check: the agent's executed tool calls against every path
expectation of its case (``assay.cases`` ``PATH_KINDS``), and the matching rules it uses.

Steps are numbered from 1 in the trajectory's order, model turns and tool executions
alike, so that a reason's "step 4" is the fourth step a trace or a viewer shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from assay.cases import (
    CallsInOrder,
    MaxCalls,
    MaxSteps,
    NoCallAfterRefusal,
    ToolCalled,
    ToolNotCalled,
)
from assay.grading.checks._types import CheckInput, CheckResult
from assay.outcomes import ModelStep, ToolStep, Trajectory

Numbered = tuple[tuple[int, ToolStep], ...]
"""The trajectory's tool executions, each with its step number."""


def is_subsequence(wanted: Sequence[str], seen: Sequence[str]) -> bool:
    """Whether ``wanted`` appears in ``seen`` in order, other items allowed between.

    >>> is_subsequence(["a", "c"], ["a", "b", "c"]), is_subsequence(["c", "a"], ["a", "c"])
    (True, False)
    """
    it = iter(seen)
    return all(any(item == name for item in it) for name in wanted)


def same_value(given: Any, wanted: Any) -> bool:
    """Whether a JSON value ``given`` holds ``wanted``: a mapping holds each of a wanted
    mapping's keys with a value that holds the wanted one (a subset, at any depth); a list
    holds a wanted list of its length item by item; any other value is equal to it, a
    boolean only to a boolean (``true`` is not ``1``)."""
    if isinstance(wanted, Mapping):
        return isinstance(given, Mapping) and all(
            key in given and same_value(given[key], value) for key, value in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(given, list | tuple)
            and len(given) == len(wanted)
            and all(same_value(g, w) for g, w in zip(given, wanted, strict=True))
        )
    if isinstance(given, bool) or isinstance(wanted, bool):
        return type(given) is type(wanted) and given == wanted
    return bool(given == wanted)


def argument_text(value: Any) -> str:
    """An argument as ``args_match`` reads it: a text as it is, any other value as its
    JSON text (``12.5``, ``true``, ``["a"]``)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def unmatched_arguments(arguments: Mapping[str, Any], patterns: Mapping[str, str]) -> list[str]:
    """The arguments named in ``patterns`` that are absent or whose text does not match
    their regular expression in full, in ``patterns``' order."""
    return [
        name
        for name, pattern in patterns.items()
        if name not in arguments or re.fullmatch(pattern, argument_text(arguments[name])) is None
    ]


def schema_problem(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> str | None:
    """The first way ``arguments`` break the JSON Schema ``schema``, or None when they
    satisfy it."""
    # deferred: jsonschema is needed only by a case that declares an args_schema
    from jsonschema import validators  # type: ignore[import-untyped]

    validator = validators.validator_for(schema)(schema)
    error = next(iter(validator.iter_errors(dict(arguments))), None)
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def numbered_tools(trajectory: Trajectory) -> Numbered:
    """Each tool execution with its step number (from 1, every step counted)."""
    return tuple((n, s) for n, s in enumerate(trajectory.steps, 1) if isinstance(s, ToolStep))


def _called(calls: Numbered) -> str:
    return ", ".join(s.tool for _, s in calls) or "none"


def _tool_called(expected: ToolCalled, calls: Numbered) -> str | None:
    name = expected.tool_called
    made = [(n, s) for n, s in calls if s.tool == name]
    if not made:
        return f"expected a call of {name}, none was made (calls: {_called(calls)})"
    why = ""
    for n, step in made:
        arguments = step.call.arguments
        if arguments is None:
            why = f"step {n}: {name} was called with arguments that are not a JSON object"
        elif expected.args is not None and not same_value(arguments, expected.args):
            why = f"step {n}: {name} was called with {_json(arguments)}, not {_json(expected.args)}"
        elif expected.args_match and (bad := unmatched_arguments(arguments, expected.args_match)):
            shown = ", ".join(
                f"{b} is absent"
                if b not in arguments
                else f"{b} {_json(arguments[b])} does not match {expected.args_match[b]!r}"
                for b in bad
            )
            why = f"step {n}: {name} argument {shown}"
        elif expected.args_schema is not None and (
            broken := schema_problem(arguments, expected.args_schema)
        ):
            why = f"step {n}: {name}'s arguments break args_schema: {broken}"
        else:
            return None
    return why


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _tool_not_called(expected: ToolNotCalled, calls: Numbered) -> str | None:
    name = expected.tool_not_called
    made = [n for n, s in calls if s.tool == name]
    if not made:
        return None
    return f"step {made[0]}: {name} was called, which the case forbids"


def _calls_in_order(expected: CallsInOrder, calls: Numbered) -> str | None:
    wanted = expected.calls_in_order
    if is_subsequence(wanted, [s.tool for _, s in calls]):
        return None
    found, last = 0, 0
    for n, step in calls:
        if found < len(wanted) and step.tool == wanted[found]:
            found, last = found + 1, n
    order = " → ".join(wanted)
    got = f"no {wanted[found]}" + (f" after step {last}" if found else "")
    return f"expected calls in order {order}, but {got} (calls: {_called(calls)})"


def _max_steps(expected: MaxSteps, trajectory: Trajectory) -> str | None:
    turns = [n for n, s in enumerate(trajectory.steps, 1) if isinstance(s, ModelStep)]
    if len(turns) <= expected.max_steps:
        return None
    return (
        f"step {turns[expected.max_steps]}: model turn {expected.max_steps + 1} of at most "
        f"{expected.max_steps} ({len(turns)} taken)"
    )


def _max_calls(expected: MaxCalls, calls: Numbered) -> str | None:
    over = []
    for name, most in expected.max_calls.items():
        made = [n for n, s in calls if s.tool == name]
        if len(made) > most:
            over.append(f"step {made[most]}: call {most + 1} of {name}, at most {most} expected")
    return "; ".join(over) or None


def _no_call_after_refusal(expected: NoCallAfterRefusal, calls: Numbered) -> str | None:
    if not expected.no_call_after_refusal:
        return None
    refused = next(((n, s) for n, s in calls if s.status == "refused"), None)
    if refused is None:
        return None
    after = next(((n, s) for n, s in calls if n > refused[0]), None)
    if after is None:
        return None
    return (
        f"step {after[0]}: {after[1].tool} was called after {refused[1].tool} "
        f"refused at step {refused[0]}"
    )


def path_failures(expectations: Sequence[Any], trajectory: Trajectory) -> list[str]:
    """One reason per path expectation the trajectory does not meet, in the case's order
    (others are skipped)."""
    calls = numbered_tools(trajectory)
    failures: list[str | None] = []
    for expected in expectations:
        if isinstance(expected, ToolCalled):
            failures.append(_tool_called(expected, calls))
        elif isinstance(expected, ToolNotCalled):
            failures.append(_tool_not_called(expected, calls))
        elif isinstance(expected, CallsInOrder):
            failures.append(_calls_in_order(expected, calls))
        elif isinstance(expected, MaxSteps):
            failures.append(_max_steps(expected, trajectory))
        elif isinstance(expected, MaxCalls):
            failures.append(_max_calls(expected, calls))
        elif isinstance(expected, NoCallAfterRefusal):
            failures.append(_no_call_after_refusal(expected, calls))
    return [f for f in failures if f is not None]


_PATH = (ToolCalled, ToolNotCalled, CallsInOrder, MaxSteps, MaxCalls, NoCallAfterRefusal)


def path_matches(subject: CheckInput) -> CheckResult:
    """Passes when the trajectory meets every path expectation of the case
    (``tool_called``, ``tool_not_called``, ``calls_in_order``, ``max_steps``,
    ``max_calls``, ``no_call_after_refusal``). A case with none passes; with some but no
    trajectory, it cannot be evaluated."""
    expected = [e for e in subject.case.expect if isinstance(e, _PATH)]
    if not expected:
        return CheckResult.ok("the case expects nothing of the path")
    if subject.trajectory is None:
        return CheckResult.cannot(subject.missing_trajectory)
    failures = path_failures(expected, subject.trajectory)
    if failures:
        return CheckResult.fail("; ".join(failures))
    return CheckResult.ok(f"the path meets all {len(expected)} path expectations")
