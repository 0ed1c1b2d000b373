"""Whether a comparison's verdict survives the worst case over its unknowns, and whether
the candidate is not worse than the baseline by more than a margin."""

from __future__ import annotations

import math

import pytest

from assay.compare import Delta, compare_runs, non_inferiority
from assay.errors import AssayConfigError
from assay.gates import check_margin
from assay.metrics import mcnemar_exact
from assay.render import render

from .helpers import case, side

CASES = [case(f"E{i:02d}") for i in range(1, 31)]


def _statuses(**runs: int) -> dict[str, str]:
    """The first cases in the given statuses, in order (``passed=3, error=2, …``)."""
    out: list[str] = []
    for status, n in runs.items():
        out += [status] * n
    return {c.id: s for c, s in zip(CASES, out, strict=True)}


def test_a_better_verdict_that_rests_on_unknowns_does_not_survive() -> None:
    # 12 up, 2 down; 6 of the ups were error or missing in the baseline
    base = _statuses(failed=6, error=4, missing=2, passed=18)
    cand = {c.id: "passed" for c in CASES}
    cand |= {CASES[16].id: "error", CASES[17].id: "error"}  # two of its own unknowns
    comparison = compare_runs(side(CASES, base, "b"), side(CASES, cand, "c"))
    assert comparison.summary.endswith("the candidate is better beyond noise at the 95% level")
    worst = comparison.worst_case
    assert worst is not None
    assert (worst.unknown_baseline, worst.unknown_candidate) == (6, 2)
    # baseline's unknowns passed: the 6 are no longer fixes; the candidate's 2 are broken
    assert (comparison.mcnemar.fixed, comparison.mcnemar.broken) == (12, 2)
    assert (worst.mcnemar.fixed, worst.mcnemar.broken) == (6, 2)
    assert worst.mcnemar.p_value == mcnemar_exact(6, 2)
    assert worst.survives is False
    assert worst.summary.startswith("the verdict does not survive the worst case")
    for fmt in ("text", "markdown", "html", "json"):
        assert "does not survive the worst case" in render(comparison, fmt), fmt


def test_a_verdict_with_no_unknowns_is_its_own_worst_case() -> None:
    base = _statuses(failed=15, passed=15)
    cand = _statuses(passed=30)
    comparison = compare_runs(side(CASES, base, "b"), side(CASES, cand, "c"))
    worst = comparison.worst_case
    assert worst is not None and worst.survives
    assert worst.delta == comparison.task_success_delta
    assert "its own worst case" in worst.summary


def test_a_verdict_that_holds_with_the_unknowns_against_the_candidate_survives() -> None:
    base = _statuses(failed=20, missing=1, passed=9)
    cand = _statuses(passed=30)
    worst = compare_runs(side(CASES, base, "b"), side(CASES, cand, "c")).worst_case
    assert worst is not None and worst.survives
    assert (worst.mcnemar.fixed, worst.mcnemar.broken) == (20, 0)
    assert worst.summary.startswith("the verdict survives the worst case")


def _delta(low: float, high: float) -> Delta:
    return Delta(value=(low + high) / 2, ci=(low, high), method="test")


@pytest.mark.parametrize(
    ("low", "high", "verdict", "words"),
    [
        (-0.011, 0.034, "not worse", "not worse than the baseline by more than 2.0 points: "
         "the paired 95% interval of the difference is [-1.1, +3.4] points"),
        (-0.031, 0.01, "undecided", "may be worse than the baseline by more than 2.0 points"),
        (-0.08, -0.031, "worse", "worse than the baseline by more than 2.0 points"),
        (-0.02, 0.05, "undecided", "reaching below -2.0"),  # the limit itself is not above
    ],
)  # fmt: skip
def test_non_inferiority_reads_the_paired_interval(
    low: float, high: float, verdict: str, words: str
) -> None:
    found = non_inferiority(_delta(low, high), 0.02)
    assert found.verdict == verdict
    assert found.passed is (verdict == "not worse")
    assert words in found.summary


def test_non_inferiority_without_pairs_is_not_a_pass() -> None:
    found = non_inferiority(Delta(value=None, ci=None, method="test"), 0.02)
    assert found.verdict is None and not found.passed and found.summary.startswith("n/a")


@pytest.mark.parametrize("bad", [-0.01, 1.0, 2.0, math.nan, math.inf])
def test_bad_margins_are_refused_naming_the_flag(bad: float) -> None:
    with pytest.raises(AssayConfigError, match=r"^--margin: the margin"):
        check_margin(bad, "--margin")
    assert check_margin(0.0, "--margin") == 0.0
