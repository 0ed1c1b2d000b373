"""A case's expectations: typed when the case is read, written back as they were given."""

from __future__ import annotations

from typing import Any

import pytest

from assay.cases import (
    Case,
    MaxCalls,
    StateEquals,
    ToolCalled,
    canonical_record,
    dataset_version,
    parse_case,
)
from assay.errors import Location


def _raw(*expect: Any) -> dict[str, Any]:
    return {"id": "A1", "slice": "s", "question": "q", "expected_behavior": "abstain",
            "expect": list(expect)}  # fmt: skip


def _problems(*expect: Any) -> list[str]:
    made = parse_case(_raw(*expect), Location("d.jsonl", 4))
    assert isinstance(made, list)
    return [str(p) for p in made]


def test_each_expectation_is_read_into_its_kind() -> None:
    case = Case.model_validate(
        _raw(
            {"tool_called": "issue_refund", "args": {"order": "A1"}, "args_match": {"n": r"\d+"}},
            {"max_calls": {"lookup": 2}},
            {"state_equals": {"orders.A1.status": "refunded"}},
        )
    )
    called, most, state = case.expect
    assert isinstance(called, ToolCalled) and called.args == {"order": "A1"}
    assert isinstance(most, MaxCalls) and most.max_calls == {"lookup": 2}
    assert isinstance(state, StateEquals)
    assert canonical_record(case)["expect"][0] == {
        "tool_called": "issue_refund", "args": {"order": "A1"}, "args_match": {"n": r"\d+"},
    }  # fmt: skip


def test_expectations_and_a_starting_state_are_part_of_the_version() -> None:
    plain = Case(id="A1", slice="s", question="q", expected_behavior="abstain")
    assert "expect" not in canonical_record(plain)
    with_expect = Case.model_validate(_raw({"max_steps": 3}))
    assert dataset_version([with_expect]) != dataset_version([plain])
    with_state = plain.model_copy(update={"state": {"orders": {}}})
    assert dataset_version([with_state]) != dataset_version([plain])


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        (
            {"tool_not_caled": "x"},
            'd.jsonl:4: expect: [0] unknown expectation kind "tool_not_caled" '
            '(did you mean "tool_not_called"?)',
        ),
        (
            {"tool_called": "x", "max_steps": 2},
            "d.jsonl:4: expect: [0] one kind per expectation, got tool_called, max_steps",
        ),
        ("max_steps", "d.jsonl:4: expect: [0] an expectation is a mapping such as"),
        ({"tool_called": "x", "argz": {}}, 'd.jsonl:4: unknown field "expect[0].tool_called.argz"'),
        (
            {"calls_in_order": "a"},
            "d.jsonl:4: expect[0].calls_in_order.calls_in_order: input should be a valid tuple",
        ),
        (
            {"tool_called": "x", "args_schema": {"type": 5}},
            "d.jsonl:4: expect[0].tool_called.args_schema: not a valid JSON Schema",
        ),
        (
            {"success_claims": {"x": ["(unclosed"]}},
            "d.jsonl:4: expect[0].success_claims.success_claims: '(unclosed' is not a regular "
            "expression",
        ),
    ],
)
def test_a_bad_expectation_names_its_field(expect: Any, message: str) -> None:
    problems = _problems(expect)
    assert any(p.startswith(message) for p in problems), problems
