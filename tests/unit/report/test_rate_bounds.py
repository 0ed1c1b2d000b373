"""Bounds over a rate's unknown case-trials, made by one function from the rate's counts."""

from __future__ import annotations

import pytest

from assay.metrics import IntervalSetting, SliceSummary, StatusCounts, rate
from assay.report._correction import rate_bounds, unknown_bounds


def test_worst_keeps_the_numerator_and_best_adds_the_unknowns() -> None:
    r = rate(6, 10, "cases", numerator_name="passing cases")
    found = rate_bounds(r, 3)
    assert found is not None
    assert (found.unknown, found.worst.numerator, found.best.numerator) == (3, 6, 9)
    assert found.worst.denominator == found.best.denominator == 10
    assert found.worst.ci == r.ci
    assert found.best.ci == rate(9, 10, "cases").ci


def test_unknowns_the_numerator_counts_leave_it_for_the_worst_case() -> None:
    coverage = rate(8, 10, "cases")
    found = rate_bounds(coverage, 3, counted=1)
    assert found is not None
    assert (found.worst.numerator, found.best.numerator) == (7, 10)


def test_the_intervals_are_at_the_rate_s_own_level_and_method() -> None:
    r = rate(4, 9, "cases", interval=IntervalSetting(0.9, "wilson"))
    found = rate_bounds(r, 2)
    assert found is not None
    for side in (found.worst, found.best):
        assert (side.confidence, side.method) == (0.9, "wilson")
    assert found.best.ci == rate(6, 9, "cases", interval=IntervalSetting(0.9, "wilson")).ci


def test_no_unknowns_or_no_denominator_has_no_bounds() -> None:
    assert rate_bounds(rate(6, 10, "cases"), 0) is None
    assert rate_bounds(rate(0, 0, "answers"), 2) is None


def test_unknowns_that_cannot_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="do not fit"):
        rate_bounds(rate(9, 10, "cases"), 2)
    with pytest.raises(ValueError, match="do not fit"):
        rate_bounds(rate(5, 10, "cases"), 2, counted=3)


def test_every_headline_rate_and_slice_with_unknowns_has_bounds() -> None:
    # 10 cases: 5 passed, 2 failed, 1 error, 1 missing, 1 ungraded answer; 8 answered
    statuses = StatusCounts(passed=5, failed=2, error=1, missing=1, ungraded=1)
    sl = StatusCounts(passed=2, failed=1, error=1)
    clean = StatusCounts(passed=3, failed=1)
    found = unknown_bounds(
        rate(5, 10, "cases"),
        statuses,
        answer_coverage=rate(7, 10, "cases"),
        answered_accuracy=rate(5, 7, "answers"),
        answered_unknown=1,
        slices={
            "a": SliceSummary(total=4, success=2, task_success=rate(2, 4, "c"), statuses=sl),
            "b": SliceSummary(total=4, success=3, task_success=rate(3, 4, "c"), statuses=clean),
        },
    )
    assert found is not None
    assert (found.task_success.worst.numerator, found.task_success.best.numerator) == (5, 8)
    assert found.answer_coverage is not None
    assert (found.answer_coverage.worst.numerator, found.answer_coverage.best.numerator) == (6, 9)
    assert found.answered_accuracy is not None
    assert found.answered_accuracy.unknown == 1
    assert (found.answered_accuracy.worst.numerator, found.answered_accuracy.best.numerator) == (
        5,
        6,
    )
    assert list(found.slices) == ["a"]
    assert (found.slices["a"].worst.numerator, found.slices["a"].best.numerator) == (2, 3)


def test_without_the_count_of_unknown_answers_only_task_success_is_bounded() -> None:
    statuses = StatusCounts(passed=5, failed=2, ungraded=3)
    found = unknown_bounds(
        rate(5, 10, "cases"),
        statuses,
        answer_coverage=rate(10, 10, "cases"),
        answered_accuracy=rate(5, 10, "answers"),
    )
    assert found is not None
    assert found.answer_coverage is None and found.answered_accuracy is None
