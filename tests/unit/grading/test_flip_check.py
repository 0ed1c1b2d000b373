"""flip_check: a labelled synthetic copy of a real case with exactly one check flipped."""

from __future__ import annotations

import pytest

from assay.cases import Case
from assay.errors import AssayInputError
from assay.grading.checks import DEFAULT_WEIGHTS, CheckResult, CompositeScorer, flip_check

REAL = Case(
    id="golden_001",
    slice="standard",
    question="How many days?",
    expected_behavior="answer",
    expected_fact="return_window_30_days",
    rationale="Section standard-window says 30 days.",
)
ALL_PASS = {n: CheckResult(passed=True, reason="ok") for n in DEFAULT_WEIGHTS}


def test_flips_exactly_one_check_and_labels_the_copy() -> None:
    case, recorded = flip_check(REAL, ALL_PASS, "citation_valid")
    assert case.id == "golden_001.flip-citation_valid"
    assert case.synthetic is True
    assert case.provenance is not None
    assert (case.provenance.source_case, case.provenance.check) == ("golden_001", "citation_valid")
    assert (case.provenance.from_value, case.provenance.to_value) == (True, False)
    assert case.expected_fact == REAL.expected_fact and case.question == REAL.question
    changed = [n for n in ALL_PASS if recorded.checks[n].passed != ALL_PASS[n].passed]
    assert changed == ["citation_valid"]


def test_the_lessons_synthetic_case_diverges() -> None:
    case, recorded = flip_check(REAL, ALL_PASS, "citation_valid")
    result = CompositeScorer().combine(case.id, recorded.checks)
    assert (result.score, result.verdict, result.strict_verdict) == (0.95, "pass", "fail")


def test_flipping_a_failed_check_makes_it_pass() -> None:
    checks = {**ALL_PASS, "format_valid": CheckResult(passed=False, reason="bad")}
    _, recorded = flip_check(REAL, checks, "format_valid", new_id="x")
    assert recorded.case_id == "x"
    assert recorded.checks["format_valid"].passed is True


def test_refusals() -> None:
    synthetic, _ = flip_check(REAL, ALL_PASS, "citation_valid")
    with pytest.raises(AssayInputError, match="starts from a real case"):
        flip_check(synthetic, ALL_PASS, "format_valid")
    with pytest.raises(AssayInputError, match='did you mean "citation_valid"'):
        flip_check(REAL, ALL_PASS, "citation_vaild")
    unknown = {**ALL_PASS, "citation_valid": CheckResult(passed=None, reason="no snapshot")}
    with pytest.raises(AssayInputError, match="only a passed or failed check can be flipped"):
        flip_check(REAL, unknown, "citation_valid")
