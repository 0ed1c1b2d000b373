"""The ``state_matches`` check: the state the agent's tools left against every
``state_equals`` expectation of its case."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from assay.cases import StateEquals
from assay.grading.checks._path import same_value
from assay.grading.checks._types import CheckInput, CheckResult

ABSENT = object()
"""What ``state_at`` gives for a path the state does not have."""


def state_at(state: Any, path: str) -> Any:
    """The value at the dotted ``path`` of ``state`` (a key of a mapping; a whole number
    indexes a list), or ``ABSENT`` when there is none.

    >>> state_at({"orders": [{"status": "open"}]}, "orders.0.status")
    'open'
    """
    value = state
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return ABSENT
    return value


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def state_differences(wanted: Mapping[str, Any], state: Any) -> list[str]:
    """Where ``state`` differs from ``wanted`` (dotted path → value), one line each, e.g.
    ``orders.A1.refund is null, expected "issued"``; empty when it holds every value.
    Values compare as JSON: a boolean only equals a boolean, a mapping must be equal."""
    wrong = []
    for path, value in wanted.items():
        found = state_at(state, path)
        if found is ABSENT:
            wrong.append(f"{path} is absent, expected {_json(value)}")
        elif not (same_value(found, value) and same_value(value, found)):
            wrong.append(f"{path} is {_json(found)}, expected {_json(value)}")
    return wrong


def wanted_state(expect: Iterable[Any]) -> dict[str, Any]:
    """Every ``state_equals`` value of a case's expectations, by dotted path."""
    wanted: dict[str, Any] = {}
    for expected in expect:
        if isinstance(expected, StateEquals):
            wanted.update(expected.state_equals)
    return wanted


def state_matches(subject: CheckInput) -> CheckResult:
    """Passes when each dotted path of every ``state_equals`` expectation holds its value
    in the trajectory's final state (``state_after``; values compared as JSON: a boolean
    only equals a boolean, and a mapping must equal the expected one exactly). A case with
    no state expectation passes; with one but no trajectory or no final state recorded, it
    cannot be evaluated."""
    wanted = wanted_state(subject.case.expect)
    if not wanted:
        return CheckResult.ok("the case expects nothing of the final state")
    if subject.trajectory is None:
        return CheckResult.cannot(subject.missing_trajectory)
    state = subject.trajectory.state_after
    if state is None:
        return CheckResult.cannot("the trajectory records no final state (state_after)")
    wrong = state_differences(wanted, state)
    if wrong:
        return CheckResult.fail("final state: " + "; ".join(wrong))
    return CheckResult.ok(f"the final state holds all {len(wanted)} expected values")
