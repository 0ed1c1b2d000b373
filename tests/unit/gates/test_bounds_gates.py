"""Gates on any rate's worst and best case over its unknowns: ``answer_coverage.worst``,
``answered_accuracy.best.low``, ``slice[NAME].task_success.worst``."""

from __future__ import annotations

import pytest

from assay.errors import AssayConfigError
from assay.gates import evaluate_gates
from assay.metrics import StatusCounts, rate
from assay.report import Report


def _report(ungraded: int) -> Report:
    """10 cases: 6 passed, 2 failed, 2 errors less the ``ungraded`` answers among them."""
    statuses = StatusCounts(passed=6, failed=2, error=2 - ungraded, ungraded=ungraded)
    answered = 8 + ungraded
    slices = {
        "a": {"total": 5, "success": 3, "task_success": rate(3, 5, "c").model_dump(),
              "statuses": StatusCounts(passed=3, failed=2).model_dump()},
        "b": {"total": 5, "success": 3, "task_success": rate(3, 5, "c").model_dump(),
              "statuses": statuses.model_copy(update={"passed": 3, "failed": 0}).model_dump()},
    }  # fmt: skip
    return Report.model_validate(
        {
            "assay_version": "0",
            "dataset": {"name": "d", "version": "sha256:0", "cases": 10},
            "total": 10,
            "success": 6,
            "answered": answered,
            "correct_answers": 6,
            "errors": 2 - ungraded,
            "missing": 0,
            "ungraded": ungraded,
            "answered_unknown": ungraded,
            "statuses": statuses.model_dump(),
            "task_success": rate(6, 10, "cases").model_dump(),
            "answer_coverage": rate(answered, 10, "cases").model_dump(),
            "answered_accuracy": rate(6, answered, "answers").model_dump(),
            "slices": slices,
        }
    )


def test_worst_and_best_of_answered_accuracy_and_coverage() -> None:
    report = _report(ungraded=1)
    worst, best, cover, low = evaluate_gates(
        report,
        [
            "answered_accuracy.worst>=0.66",
            "answered_accuracy.best>=0.7",
            "answer_coverage.worst>=0.85",
            "answered_accuracy.best.low>0",
        ],
    )
    assert worst.passed and worst.actual == pytest.approx(6 / 9)
    assert best.passed and best.actual == pytest.approx(7 / 9)
    # coverage's worst case counts the ungraded answer and the error as not answered
    assert not cover.passed and cover.actual == pytest.approx(0.8)
    b = report.unknown_bounds
    assert b is not None and b.answered_accuracy is not None
    assert b.answered_accuracy.best.ci is not None
    assert low.actual == pytest.approx(b.answered_accuracy.best.ci[0])


def test_a_slice_s_worst_case_and_a_slice_without_unknowns() -> None:
    report = _report(ungraded=0)
    bounded, clean = evaluate_gates(
        report, ["slice[b].task_success.worst>=0.6", "slice[a].task_success.best<=0.6"]
    )
    assert bounded.passed and bounded.actual == pytest.approx(0.6)
    assert clean.passed and clean.actual == pytest.approx(0.6)  # no unknowns: the rate itself


def test_a_rate_without_unknowns_reads_as_itself() -> None:
    report = _report(ungraded=0)
    b = report.unknown_bounds
    assert b is not None and b.answered_accuracy is None
    (found,) = evaluate_gates(report, ["answered_accuracy.worst>=0.75"])
    assert found.passed and found.actual == pytest.approx(0.75)


def test_an_unknown_side_or_slice_is_refused_with_a_hint() -> None:
    with pytest.raises(AssayConfigError, match='did you mean "worst"'):
        evaluate_gates(_report(1), ["answer_coverage.wrost>=0.5"])
    with pytest.raises(AssayConfigError, match=r"no slices? named 'c'"):
        evaluate_gates(_report(1), ["slice[c].task_success.worst>=0.5"])
