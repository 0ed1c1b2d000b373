"""Recorded check-result lines: parsing, located errors, and the id checks before scoring."""

from __future__ import annotations

from typing import Any

import pytest

from assay.errors import (
    DuplicateResultError,
    InputFormatError,
    Location,
    TrialNumberError,
    UnknownResultIdError,
)
from assay.grading.checks import (
    DEFAULT_WEIGHTS,
    CheckResult,
    check_composite_inputs,
    check_line_value,
    parse_composite_results,
)

KNOWN = list(DEFAULT_WEIGHTS)


def lines(*raw: Any) -> list[tuple[Location, Any]]:
    return [(Location("r.jsonl", i), item) for i, item in enumerate(raw, start=1)]


def test_bools_nulls_and_objects_are_accepted() -> None:
    inputs = parse_composite_results(
        lines(
            {
                "id": "a",
                "checks": {
                    "content_present": True,
                    "citation_valid": {"passed": False, "reason": "stale citation"},
                    "format_valid": None,
                },
            },
            {"id": "b", "kind": "answer", "text": "free text"},
        ),
        "r.jsonl",
        KNOWN,
    )
    (recorded,) = inputs.recorded
    assert recorded.checks["content_present"].passed is True
    assert recorded.checks["citation_valid"] == CheckResult(passed=False, reason="stale citation")
    assert recorded.checks["format_valid"].passed is None
    assert [r.case_id for r in inputs.records.records] == ["b"]


def test_line_values_round_trip() -> None:
    for value in (True, False, None, {"passed": False, "reason": "stale"}):
        inputs = parse_composite_results(
            lines({"id": "a", "checks": {"format_valid": value}}), "r", KNOWN
        )
        assert check_line_value(inputs.recorded[0].checks["format_valid"]) == value


def test_problems_name_the_line_field_and_closest_check() -> None:
    with pytest.raises(InputFormatError) as err:
        parse_composite_results(
            lines(
                {"id": "a", "checks": {"citation_vaild": True}},
                {"id": "b", "checks": {"format_valid": "yes"}},
                {"checks": {}},
            ),
            "r.jsonl",
            KNOWN,
        )
    text = str(err.value)
    assert 'r.jsonl:1: unknown check "citation_vaild" (did you mean "citation_valid"?)' in text
    assert "r.jsonl:2: checks.format_valid must be true, false, null" in text
    assert "r.jsonl:3: id is required" in text


def test_unknown_ids_and_duplicates_are_refused_before_scoring() -> None:
    inputs = parse_composite_results(
        lines({"id": "a", "checks": {"format_valid": True}}, {"id": "zz", "kind": "abstain"}),
        "r",
        KNOWN,
    )
    with pytest.raises(UnknownResultIdError, match="zz"):
        check_composite_inputs(inputs, {"a"})
    twice = parse_composite_results(
        lines({"id": "a", "checks": {"format_valid": True}}, {"id": "a", "kind": "abstain"}),
        "r",
        KNOWN,
    )
    with pytest.raises(DuplicateResultError, match="a"):
        check_composite_inputs(twice, {"a"})


@pytest.mark.parametrize(
    "line",
    [
        {"id": "a", "kind": "abstain", "trial": 100_000_000_000_000_000_000},
        {"id": "a", "trial": 1_000_000, "checks": {"format_valid": True}},
    ],
)
def test_a_trial_number_beyond_what_the_lines_can_number_is_refused(line: Any) -> None:
    inputs = parse_composite_results(
        lines({"id": "b", "checks": {"format_valid": True}}, line), "r", KNOWN
    )
    with pytest.raises(TrialNumberError, match=f"a \\(trial {line['trial']}\\)") as refused:
        check_composite_inputs(inputs, {"a", "b"})
    assert refused.value.ids == {f"a (trial {line['trial']})": (Location("r.jsonl", 2),)}
    assert refused.value.allowed == 1_000
