"""Result lines: parsing one flat object into a record, and the checks before scoring."""

from __future__ import annotations

from typing import Any

import pytest

from assay import (
    Abstain,
    Answer,
    DuplicateResultError,
    Error,
    InputFormatError,
    Record,
    UnknownResultIdError,
)
from assay.errors import Location, Problem
from assay.outcomes import Results, check_results, parse_result_line, parse_results, result_line

HERE = Location("r.jsonl", 3)


def _problems(raw: Any) -> list[str]:
    parsed = parse_result_line(raw, HERE)
    assert isinstance(parsed, list)
    assert all(isinstance(p, Problem) and p.location == HERE for p in parsed)
    return [p.message for p in parsed]


def test_the_three_kinds() -> None:
    answer = parse_result_line(
        {"id": "E1", "kind": "answer", "fact": "f", "citations": ["s"]}, HERE
    )
    abstain = parse_result_line({"id": "E3", "kind": "abstain", "reason": "no evidence"}, HERE)
    error = parse_result_line({"id": "E5", "kind": "error", "class": "timeout"}, HERE)
    assert answer == Record(case_id="E1", outcome=Answer(fact="f", citations=("s",)))
    assert abstain == Record(case_id="E3", outcome=Abstain(reason="no evidence"))
    assert error == Record(case_id="E5", outcome=Error(error_class="timeout"))


def test_trial_and_runner_fields() -> None:
    parsed = parse_result_line(
        {"id": "E1", "kind": "abstain", "trial": 2, "latency_ms": 12.5, "attempts": 2}, HERE
    )
    assert isinstance(parsed, Record)
    assert (parsed.key, parsed.latency_ms, parsed.attempts) == (("E1", 2), 12.5, 2)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"kind": "abstain"}, "id is required (the case id this result belongs to)"),
        ({"id": "", "kind": "abstain"}, "id must be a non-empty string (got '')"),
        ({"id": 7, "kind": "abstain"}, "id must be a non-empty string (got 7)"),
        ({"id": "E1"}, 'kind is required: "answer", "abstain" or "error"'),
        ({"id": "E1", "kind": "answer"}, 'fact is required when kind is "answer"'),
        (
            {"id": "E1", "kind": "abstain", "fact": "f"},
            'fact is only allowed when kind is "answer"',
        ),
        (
            {"id": "E1", "kind": "error", "reason": "x"},
            'reason is only allowed when kind is "abstain"',
        ),
        (
            {"id": "E1", "kind": "error", "text": "x"},
            'text is only allowed when kind is "answer" or "abstain"',
        ),
        (
            {"id": "E1", "kind": "answer", "fact": "f", "fcat": "g"},
            'unknown field "fcat" (did you mean "fact"?)',
        ),
        (
            {"id": "E1", "kind": "abstain", "trail": 2},
            'unknown field "trail" (did you mean "trial"?)',
        ),
    ],
)
def test_one_clear_problem(raw: dict[str, Any], message: str) -> None:
    assert _problems(raw) == [message]


def test_bad_kind_suggests_the_closest() -> None:
    (message,) = _problems({"id": "E1", "kind": "abstian"})
    assert message.startswith('kind must be "answer", "abstain" or "error"')
    assert message.endswith('(did you mean "abstain"?)')


def test_not_an_object() -> None:
    assert _problems(["E1", "abstain"]) == ["a result must be an object, got list"]


def test_every_line_is_reported_at_once() -> None:
    lines = [
        (Location("r.jsonl", 1), {"id": "E1", "kind": "answer"}),
        (Location("r.jsonl", 2), {"id": "E2", "kind": "abstain"}),
        (Location("r.jsonl", 3), {"id": "E3", "kind": "nope"}),
    ]
    with pytest.raises(InputFormatError) as info:
        parse_results(lines, "r.jsonl")
    assert [p.location.line for p in info.value.problems if p.location] == [1, 3]
    assert str(info.value).startswith("r.jsonl: invalid results:")


def test_result_line_is_the_inverse_of_parsing() -> None:
    for raw in (
        {"id": "E1", "kind": "answer", "fact": "f"},
        {"id": "E1", "trial": 2, "kind": "abstain"},
        {"id": "E5", "kind": "error", "error_class": "timeout", "message": "slow"},
    ):
        parsed = parse_result_line(raw, HERE)
        assert isinstance(parsed, Record)
        assert result_line(parsed) == raw


def _results(*keys: tuple[str, int], line: int = 1) -> Results:
    records = tuple(Record(case_id=c, trial=t, outcome=Abstain()) for c, t in keys)
    return Results(records, tuple(Location("r.jsonl", line + i) for i in range(len(keys))))


def test_unknown_ids_are_all_named_with_their_lines() -> None:
    with pytest.raises(UnknownResultIdError) as info:
        check_results(_results(("E1", 1), ("X", 1), ("Y", 1), ("X", 2)), ["E1"])
    assert set(info.value.ids) == {"X", "Y"}
    assert [loc.line for loc in info.value.ids["X"] if loc] == [2, 4]


def test_duplicates_are_per_case_and_trial() -> None:
    check_results(_results(("E1", 1), ("E1", 2)), ["E1"])
    with pytest.raises(DuplicateResultError) as info:
        check_results(_results(("E1", 2), ("E1", 2)), ["E1"])
    assert list(info.value.ids) == ["E1 (trial 2)"]
