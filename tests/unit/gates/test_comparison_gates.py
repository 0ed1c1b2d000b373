"""Comparison gates: no-new-failures and figure rules, with what failed and by how much."""

from __future__ import annotations

import pytest
from tests.unit.compare.helpers import case, side

from assay.compare import compare_runs
from assay.errors import AssayConfigError
from assay.gates import check_gate, parse_rule

CASES = [case(f"E{i}") for i in range(1, 6)]
ALL_PASS = {c.id: "passed" for c in CASES}


def test_no_new_failures_passes_when_nothing_broke() -> None:
    c = compare_runs(side(CASES, ALL_PASS | {"E1": "failed"}), side(CASES, ALL_PASS))
    assert check_gate(c, "no-new-failures").passed


def test_no_new_failures_names_broken_cases_and_lost_passes() -> None:
    cand = ALL_PASS | {"E2": "failed", "E4": "error"}
    result = check_gate(compare_runs(side(CASES, ALL_PASS), side(CASES, cand)), "no-new-failures")
    assert not result.passed
    assert result.detail == "2 newly failing: E2, E4 (passed -> error)"


def test_delta_rule_reports_the_margin() -> None:
    cand = ALL_PASS | {"E2": "failed"}
    c = compare_runs(side(CASES, ALL_PASS), side(CASES, cand))
    failed = check_gate(c, "task_success_delta>=-0.02")
    assert not failed.passed
    assert "task_success_delta = -0.2" in failed.detail
    assert "off by -0.18" in failed.detail
    assert check_gate(c, "task_success_delta >= -25%").passed
    assert check_gate(c, "newly_broken<=1").passed


@pytest.mark.parametrize("rule", ["task_sucess_delta>=0", "delta=>0", "no-new-failure"])
def test_bad_rules_are_config_errors(rule: str) -> None:
    c = compare_runs(side(CASES, ALL_PASS), side(CASES, ALL_PASS))
    with pytest.raises(AssayConfigError):
        check_gate(c, rule)


def test_unknown_figure_suggests_the_closest() -> None:
    c = compare_runs(side(CASES, ALL_PASS), side(CASES, ALL_PASS))
    with pytest.raises(AssayConfigError, match='did you mean "task_success_delta"'):
        check_gate(c, "task_sucess_delta>=0")


def test_not_worse_than_baseline_reads_the_paired_interval_against_its_margin() -> None:
    c = compare_runs(side(CASES, ALL_PASS), side(CASES, ALL_PASS | {"E2": "failed"}))
    assert c.task_success_delta.ci is not None
    low = c.task_success_delta.ci[0]
    wide = check_gate(c, f"not_worse_than_baseline({-low + 0.01:.4f})")
    assert wide.passed and wide.detail.startswith("not worse than the baseline by more than")
    narrow = check_gate(c, "not_worse_than_baseline(2%)")
    assert not narrow.passed and narrow.detail.startswith("may be worse than the baseline")


def test_not_worse_than_baseline_with_nothing_paired_fails_unless_allowed() -> None:
    c = compare_runs(side(CASES, ALL_PASS), side(CASES, ALL_PASS), matching_only=True)
    empty = c.model_copy(
        update={"task_success_delta": c.task_success_delta.model_copy(update={"ci": None})}
    )
    assert not check_gate(empty, "not_worse_than_baseline(0.02)").passed
    assert check_gate(empty, "not_worse_than_baseline(0.02) allow_na").passed


def test_a_report_gate_reads_a_check_that_needs_a_baseline_as_its_margin() -> None:
    rule = parse_rule("not_worse_than_baseline(2%) allow_na")
    assert (rule.path, rule.op, rule.threshold, rule.allow_na) == (
        "not_worse_than_baseline", ">=", 0.02, True,
    )  # fmt: skip
    with pytest.raises(AssayConfigError, match=r"the margin 1\.5 is not a difference of rates"):
        parse_rule("not_worse_than_baseline(1.5)")
