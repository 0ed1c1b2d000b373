"""Gates on the figures read beside task success: its worst and best case over its
unknowns, and its correction for the judge's measured errors."""

from __future__ import annotations

import pytest

from assay.errors import AssayConfigError
from assay.gates import evaluate_gates
from assay.metrics import StatusCounts, rate
from assay.report import Report, judge_correction
from assay.report._calibration import HumanLabel, JudgedRow, build_calibration


def _report(passed: int, failed: int, error: int) -> Report:
    total = passed + failed + error
    statuses = StatusCounts(passed=passed, failed=failed, error=error, missing=0, ungraded=0)
    return Report.model_validate(
        {
            "assay_version": "0",
            "dataset": {"name": "d", "version": "sha256:0", "cases": total},
            "total": total,
            "success": passed,
            "answered": passed + failed,
            "correct_answers": passed,
            "errors": error,
            "missing": 0,
            "ungraded": 0,
            "statuses": statuses.model_dump(),
            "task_success": rate(passed, total, "cases").model_dump(),
            "answer_coverage": rate(passed + failed, total, "cases").model_dump(),
            "answered_accuracy": rate(passed, passed + failed, "answers").model_dump(),
            "slices": {},
        }
    )


def test_worst_and_best_read_the_bounds_over_the_unknowns() -> None:
    report = _report(6, 2, 2)
    assert report.unknown_bounds is not None
    worst, best, low = evaluate_gates(
        report, ["task_success.worst>=0.6", "task_success.best>=0.8", "task_success.best.low>0"]
    )
    assert worst.passed and worst.actual == pytest.approx(0.6)
    assert best.passed and best.actual == pytest.approx(0.8)
    assert low.actual == pytest.approx(report.unknown_bounds.task_success.best.ci[0])


def test_without_unknowns_worst_is_task_success_and_the_report_has_no_bounds() -> None:
    report = _report(6, 4, 0)
    assert report.unknown_bounds is None
    assert "unknown_bounds" not in report.model_dump_json()
    (found,) = evaluate_gates(report, ["task_success.worst>=0.6"])
    assert found.passed and found.actual == pytest.approx(0.6)


def _calibration(false_accepts: int, false_rejects: int, each: int = 20) -> object:
    labels = [HumanLabel(id=f"p{i}", human="pass") for i in range(each)]
    labels += [HumanLabel(id=f"f{i}", human="fail") for i in range(each)]
    rows = [
        JudgedRow(id=f"p{i}", status="failed" if i < false_rejects else "passed", reason="")
        for i in range(each)
    ]
    rows += [
        JudgedRow(id=f"f{i}", status="passed" if i < false_accepts else "failed", reason="")
        for i in range(each)
    ]
    return build_calibration(
        labels, rows, labels_file="l.jsonl", judged_from="r.json", graders=["judge v1+x"]
    )


def test_corrected_reads_the_correction_and_says_why_when_there_is_none() -> None:
    report = _report(70, 30, 0)
    cal = _calibration(false_accepts=4, false_rejects=2)
    fixed = judge_correction(report.task_success, report.statuses, cal, "c.json", "judge v1+x")
    assert fixed.corrected is not None
    # (0.7 + 0.8 - 1) / (0.9 + 0.8 - 1)
    assert fixed.corrected.value == pytest.approx(0.5 / 0.7)
    corrected = report.model_copy(update={"judge_correction": fixed})
    (found,) = evaluate_gates(corrected, ["task_success.corrected>=0.7"])
    assert found.passed and found.actual == pytest.approx(0.5 / 0.7)
    (bound,) = evaluate_gates(corrected, ["task_success.corrected.low>=0.9"])
    assert not bound.passed and "Lang-Reiczigel" in bound.message
    stale = judge_correction(
        report.task_success, report.statuses, cal, "c.json", "judge v1+y", "another judge"
    )
    refused = report.model_copy(update={"judge_correction": stale})
    (na,) = evaluate_gates(refused, ["task_success.corrected>=0.5"])
    assert not na.passed
    assert na.message == "n/a: not corrected for the judge's measured errors: another judge"
    (none,) = evaluate_gates(report, ["task_success.corrected>=0.5"])
    assert not none.passed and "no judge calibration" in none.message


def test_a_chance_judge_and_a_small_calibration_are_refused_with_the_reason() -> None:
    report = _report(70, 30, 0)
    chance = _calibration(false_accepts=10, false_rejects=10)
    found = judge_correction(report.task_success, report.statuses, chance, "c", "judge v1+x")
    assert found.corrected is None and found.reason is not None
    assert "no better than chance" in found.reason
    small = _calibration(false_accepts=0, false_rejects=0, each=5)
    found = judge_correction(report.task_success, report.statuses, small, "c", "judge v1+x")
    assert found.corrected is None and found.reason is not None
    assert "too small" in found.reason


def test_unknown_fields_beside_task_success_are_still_refused() -> None:
    with pytest.raises(AssayConfigError, match="unknown field 'wrost'"):
        evaluate_gates(_report(6, 4, 0), ["task_success.wrost>=0.5"])
