"""A case's agent expectations (``Case.expect``), read as the dataset writes them: each
entry a mapping keyed by its kind, ``{"tool_called": "issue_refund", "args": {...}}``,
``{"tool_not_called": NAME}``, ``{"calls_in_order": [A, B]}``, ``{"max_steps": N}``,
``{"max_calls": {NAME: N}}``, ``{"no_call_after_refusal": true}``,
``{"state_equals": {"dotted.path": value}}`` (an entry already read into a model is read
as the mapping it writes back).

The only place diagnose reads them: what each kind asks of a trajectory is told here,
and nowhere else in diagnose. ``max_steps`` counts model turns; a number in a state path
indexes a list.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from assay.cases import Case
from assay.outcomes import ToolStep, Trajectory

KINDS = (
    "tool_called",
    "tool_not_called",
    "calls_in_order",
    "max_steps",
    "max_calls",
    "no_call_after_refusal",
    "state_equals",
)


class Expectation(NamedTuple):
    """One entry of ``Case.expect``: its kind, the value under it and the entry whole."""

    kind: str
    value: Any
    entry: Mapping[str, Any]


def expectations(case: Case) -> Iterator[Expectation]:
    """The case's entries of a known kind, in order (others are left to the checks that
    validate them)."""
    for given in case.expect:
        entry = _mapping(given)
        kind = next((k for k in KINDS if k in entry), None)
        if kind is not None:
            yield Expectation(kind, entry[kind], entry)


def _mapping(entry: Any) -> Mapping[str, Any]:
    """An entry as the mapping it was written as."""
    if isinstance(entry, Mapping):
        return entry
    dump = getattr(entry, "model_dump", None)
    found = dump() if callable(dump) else None
    return found if isinstance(found, Mapping) else {}


def of_kind(case: Case, kind: str) -> list[Expectation]:
    return [e for e in expectations(case) if e.kind == kind]


class Missed(NamedTuple):
    """An expectation a trajectory does not meet: which, what went wrong, and the step
    (numbered from 1) that shows it, None when no step does (a call never made)."""

    kind: str
    what: str
    step: int | None


def _numbered(trajectory: Trajectory) -> list[tuple[int, ToolStep]]:
    return [(n, s) for n, s in enumerate(trajectory.steps, start=1) if isinstance(s, ToolStep)]


def _fits(arguments: Mapping[str, Any] | None, wanted: Any) -> bool:
    if not isinstance(wanted, Mapping):
        return True
    return arguments is not None and all(
        k in arguments and arguments[k] == v for k, v in wanted.items()
    )


def forbidden_calls(case: Case, trajectory: Trajectory) -> list[Missed]:
    """Calls the case forbids (``tool_not_called``), calls past a ``max_calls`` limit, and
    calls after a refusal where ``no_call_after_refusal`` holds."""
    found: list[Missed] = []
    calls = _numbered(trajectory)
    for e in of_kind(case, "tool_not_called"):
        found += [
            Missed(e.kind, f"called {s.tool}, which the case forbids (tool_not_called)", n)
            for n, s in calls
            if s.tool == e.value
        ][:1]
    for e in of_kind(case, "max_calls"):
        limits = e.value if isinstance(e.value, Mapping) else {}
        for name, limit in limits.items():
            made = [n for n, s in calls if s.tool == name]
            if isinstance(limit, int) and len(made) > limit:
                found.append(
                    Missed(
                        e.kind, f"called {name} {len(made)} times (max_calls {limit})", made[limit]
                    )
                )
    if any(e.value is True for e in of_kind(case, "no_call_after_refusal")):
        refused = next((n for n, s in calls if s.status == "refused"), None)
        after = [(n, s) for n, s in calls if refused is not None and n > refused]
        if after:
            at, later = after[0]
            what = f"called {later.tool} after the refusal at step {refused}"
            found.append(Missed("no_call_after_refusal", what, at))
    return sorted(found, key=lambda m: m.step or 0)


def missing_calls(case: Case, trajectory: Trajectory) -> list[Missed]:
    """Calls the case expects that were not made: a ``tool_called`` never executed (or
    never with its ``args``), a ``calls_in_order`` not followed."""
    found: list[Missed] = []
    calls = _numbered(trajectory)
    for e in of_kind(case, "tool_called"):
        named = [(n, s) for n, s in calls if s.tool == e.value]
        if not named:
            made = ", ".join(dict.fromkeys(s.tool for _, s in calls)) or "none"
            found.append(Missed(e.kind, f"no step called {e.value} (tools called: {made})", None))
        elif not any(_fits(s.call.arguments, e.entry.get("args")) for _, s in named):
            wanted = e.entry.get("args")
            found.append(
                Missed(e.kind, f"{e.value} was called, never with arguments {wanted}", named[0][0])
            )
    for e in of_kind(case, "calls_in_order"):
        wanted = [str(name) for name in e.value] if isinstance(e.value, list) else []
        at = 0
        for _, s in calls:
            if at < len(wanted) and s.tool == wanted[at]:
                at += 1
        if at < len(wanted):
            found.append(
                Missed(
                    e.kind,
                    f"the calls {' → '.join(wanted)} were not made in that order "
                    f"({wanted[at]} is missing after {at} of them)",
                    None,
                )
            )
    return found


def step_limit(case: Case) -> int | None:
    """The case's ``max_steps`` (model turns), when it sets one."""
    limits = [e.value for e in of_kind(case, "max_steps") if isinstance(e.value, int)]
    return min(limits) if limits else None


def state_differences(case: Case, trajectory: Trajectory) -> list[str]:
    """Where the state after differs from the case's ``state_equals`` (each dotted path
    and what was found there); empty when it agrees or the agent kept no state."""
    after = trajectory.state_after
    if after is None:
        return []
    found = []
    for e in of_kind(case, "state_equals"):
        wanted = e.value if isinstance(e.value, Mapping) else {}
        for path, value in wanted.items():
            there, got = _at(after, str(path))
            if not there:
                found.append(f"the state after has no {path} (expected {value!r})")
            elif got != value:
                found.append(f"the state after has {path} = {got!r} (expected {value!r})")
    return found


def _at(state: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    value: Any = state
    for key in path.split("."):
        if isinstance(value, Mapping) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return False, None
    return True, value
