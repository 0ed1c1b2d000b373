"""The coverage simulation of ``bench/coverage.py`` on the settings where the earlier
interval fell short (5 cases x 10 trials; pass@6 of 10; pass@3 of 5 at ICC 0.67), and its
exact truths. The full grid is the benchmark's (bench/RESULTS.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import coverage  # noqa: E402

from assay.metrics import TrialPolicy  # noqa: E402


def test_truth_is_the_expected_case_score() -> None:
    # ICC 0: every case at p; pass^2 of 2 is p^2, pass@2 of 2 is 1 - (1 - p)^2.
    assert coverage.truth(TrialPolicy("pass^k", 2), 2, 0.3, 0.0) == pytest.approx(0.09)
    assert coverage.truth(TrialPolicy("pass@k", 2), 2, 0.3, 0.0) == pytest.approx(0.51)
    # Beta(a, b) cases: E[p^2] = mu^2 + icc * mu (1 - mu) (ICC = 1 / (a + b + 1)).
    assert coverage.truth(TrialPolicy("pass^k", 2), 5, 0.4, 0.5) == pytest.approx(0.16 + 0.5 * 0.24)
    assert coverage.truth(TrialPolicy("mean"), 10, 0.7, 0.3) == pytest.approx(0.7)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cases", "trials", "icc", "mu", "policy"),
    [
        (5, 10, 0.3, 0.5, "mean"),
        (5, 10, 0.3, 0.5, "per-trial"),
        (5, 10, 0.3, 0.5, "pass@6"),
        (5, 5, 0.67, 0.5, "pass@3"),
        (3, 2, 0.7, 0.1, "mean"),
        (10, 10, 0.7, 0.1, "pass^2"),
    ],
)
def test_the_clustered_interval_covers_where_it_fell_short(
    cases: int, trials: int, icc: float, mu: float, policy: str
) -> None:
    reps = 1000
    rows = coverage.simulate(cases, trials, icc, mu, reps, np.random.default_rng(7))
    (row,) = [r for r in rows if r.setting.policy == policy]
    # 95% nominal; 1000 replications measure it to about ±1.4 points.
    assert row.coverage >= 0.935, row
    assert row.narrower == 0.0
