"""The ``path_matches`` check: the agent's executed tool calls against every path
expectation of its case (``assay.cases`` ``PATH_KINDS``), and the matching rules it uses.

Steps are numbered from 1 in the trajectory's order, model turns and tool executions
alike, so that a reason's "step 4" is the fourth step a trace or a viewer shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from assay.cases import (
    CallsInOrder,
    MaxCalls,
    MaxSteps,
    NoCallAfterRefusal,
    ToolCalled,
    ToolNotCalled,
)
from assay.grading.checks._types import CheckInput, CheckResult
from assay.outcomes import ToolStep, Trajectory

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
    """Each tool execution with its step number (``Trajectory.numbered_tool_steps``)."""
    return trajectory.numbered_tool_steps


def _called(calls: Numbered) -> str:
    return ", ".join(s.tool for _, s in calls) or "none"


class PathMiss(NamedTuple):
    """A path expectation a trajectory does not meet: its kind, what went wrong, and the
    step (numbered from 1) that shows it, None when no step does (a call never made)."""

    kind: str
    what: str
    step: int | None

    @property
    def reason(self) -> str:
        """One line: ``step N: what`` (or ``what`` when no step shows it)."""
        return self.what if self.step is None else f"step {self.step}: {self.what}"


def _tool_called(expected: ToolCalled, calls: Numbered) -> Iterator[PathMiss]:
    name = expected.tool_called
    made = [(n, s) for n, s in calls if s.tool == name]
    if not made:
        what = f"expected a call of {name}, none was made (calls: {_called(calls)})"
        yield PathMiss("tool_called", what, None)
        return
    why: PathMiss | None = None
    for n, step in made:
        arguments = step.call.arguments
        if arguments is None:
            what = f"{name} was called with arguments that are not a JSON object"
        elif expected.args is not None and not same_value(arguments, expected.args):
            what = f"{name} was called with {_json(arguments)}, not {_json(expected.args)}"
        elif expected.args_match and (bad := unmatched_arguments(arguments, expected.args_match)):
            shown = ", ".join(
                f"{b} is absent"
                if b not in arguments
                else f"{b} {_json(arguments[b])} does not match {expected.args_match[b]!r}"
                for b in bad
            )
            what = f"{name} argument {shown}"
        elif expected.args_schema is not None and (
            broken := schema_problem(arguments, expected.args_schema)
        ):
            what = f"{name}'s arguments break args_schema: {broken}"
        else:
            return
        why = PathMiss("tool_called", what, n)
    if why is not None:
        yield why


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _tool_not_called(expected: ToolNotCalled, calls: Numbered) -> Iterator[PathMiss]:
    name = expected.tool_not_called
    made = [n for n, s in calls if s.tool == name]
    if made:
        yield PathMiss("tool_not_called", f"{name} was called, which the case forbids", made[0])


def _calls_in_order(expected: CallsInOrder, calls: Numbered) -> Iterator[PathMiss]:
    wanted = expected.calls_in_order
    if is_subsequence(wanted, [s.tool for _, s in calls]):
        return
    found, last = 0, 0
    for n, step in calls:
        if found < len(wanted) and step.tool == wanted[found]:
            found, last = found + 1, n
    order = " → ".join(wanted)
    got = f"no {wanted[found]}" + (f" after step {last}" if found else "")
    yield PathMiss(
        "calls_in_order",
        f"expected calls in order {order}, but {got} (calls: {_called(calls)})",
        None,
    )


def _max_steps(expected: MaxSteps, trajectory: Trajectory) -> Iterator[PathMiss]:
    turns = trajectory.model_turn_numbers
    if len(turns) > expected.max_steps:
        yield PathMiss(
            "max_steps",
            f"model turn {expected.max_steps + 1} of at most {expected.max_steps} "
            f"({len(turns)} taken)",
            turns[expected.max_steps],
        )


def _max_calls(expected: MaxCalls, calls: Numbered) -> Iterator[PathMiss]:
    for name, most in expected.max_calls.items():
        made = [n for n, s in calls if s.tool == name]
        if len(made) > most:
            yield PathMiss(
                "max_calls", f"call {most + 1} of {name}, at most {most} expected", made[most]
            )


def _no_call_after_refusal(expected: NoCallAfterRefusal, calls: Numbered) -> Iterator[PathMiss]:
    if not expected.no_call_after_refusal:
        return
    refused = next(((n, s) for n, s in calls if s.status == "refused"), None)
    if refused is None:
        return
    after = next(((n, s) for n, s in calls if n > refused[0]), None)
    if after is not None:
        yield PathMiss(
            "no_call_after_refusal",
            f"{after[1].tool} was called after {refused[1].tool} refused at step {refused[0]}",
            after[0],
        )


def path_misses(expectations: Sequence[Any], trajectory: Trajectory) -> list[PathMiss]:
    """Every path expectation the trajectory does not meet, in the case's order (other
    kinds are skipped): the one reading of the path that the check and diagnose share."""
    calls = numbered_tools(trajectory)
    misses: list[PathMiss] = []
    for expected in expectations:
        if isinstance(expected, ToolCalled):
            misses += _tool_called(expected, calls)
        elif isinstance(expected, ToolNotCalled):
            misses += _tool_not_called(expected, calls)
        elif isinstance(expected, CallsInOrder):
            misses += _calls_in_order(expected, calls)
        elif isinstance(expected, MaxSteps):
            misses += _max_steps(expected, trajectory)
        elif isinstance(expected, MaxCalls):
            misses += _max_calls(expected, calls)
        elif isinstance(expected, NoCallAfterRefusal):
            misses += _no_call_after_refusal(expected, calls)
    return misses


def path_failures(expectations: Sequence[Any], trajectory: Trajectory) -> list[str]:
    """One reason per path expectation the trajectory does not meet, in the case's order
    (others are skipped)."""
    return [m.reason for m in path_misses(expectations, trajectory)]


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
