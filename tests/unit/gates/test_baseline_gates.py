"""``not_worse_than_baseline(MARGIN)`` on one report: against the baseline it is given,
failing with the reason when there is none or the two do not pair."""

from __future__ import annotations

import pytest

from assay.errors import AssayConfigError
from assay.gates import Baseline, evaluate_gates, needs_baseline, parse_rule
from assay.report import CompositeReport, Report


def test_a_report_is_not_worse_than_itself_by_a_wide_margin(report: Report) -> None:
    rule = parse_rule("not_worse_than_baseline(0.9)")
    assert needs_baseline([rule]) and not needs_baseline([parse_rule("errors==0")])
    (result,) = evaluate_gates(report, [rule], Baseline(report, "run r-0"))
    assert result.passed, result.message
    assert "not worse than the baseline by more than 90.0 points" in result.message
    assert result.message.endswith("(baseline: run r-0)")
    assert result.actual is not None and result.actual < 0 < result.margin  # type: ignore[operator]


def test_an_undecided_comparison_fails_a_narrow_margin(report: Report) -> None:
    (result,) = evaluate_gates(report, ["not_worse_than_baseline(2%)"], Baseline(report, "x"))
    assert not result.passed and "may be worse than the baseline" in result.message


def test_no_baseline_fails_with_the_reason_unless_allowed(report: Report) -> None:
    (result,) = evaluate_gates(report, ["not_worse_than_baseline(0.5)"])
    assert not result.passed
    assert result.message == "n/a: no baseline was given to compare with"
    why = Baseline.missing("suite 's' has no completed run before r-1")
    (result,) = evaluate_gates(report, ["not_worse_than_baseline(0.5)"], why)
    assert not result.passed and result.message == f"n/a: {why.named}"
    (result,) = evaluate_gates(report, ["not_worse_than_baseline(0.5) allow_na"], why)
    assert result.passed and result.message.endswith("(allowed)")


def test_a_baseline_that_does_not_pair_fails_naming_why(report: Report, report_e7: Report) -> None:
    (result,) = evaluate_gates(
        report_e7, ["not_worse_than_baseline(0.5)"], Baseline(report, "report base.json")
    )
    assert not result.passed
    assert result.message.startswith(
        "n/a: the baseline (report base.json) and this run do not pair"
    )


def test_a_composite_report_refuses_the_check() -> None:
    with pytest.raises(AssayConfigError, match="a CompositeReport has none"):
        parse_rule("not_worse_than_baseline(0.02)", CompositeReport)
