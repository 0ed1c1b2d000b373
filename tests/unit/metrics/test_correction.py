"""The pass rate corrected for a judge's measured errors: Rogan–Gladen's estimate, Lang &
Reiczigel's interval, checked against hand-made counts, a brute-force Monte Carlo reference
and its simulated coverage; and the refusals."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from assay.metrics._correction import corrected_rate, lang_reiczigel, rogan_gladen


def test_the_estimate_is_rogan_gladen_on_hand_made_counts() -> None:
    # 72 of 100 passed; the judge failed 5 of 50 human-pass cases (sensitivity 0.9) and
    # passed 8 of 40 human-fail cases (specificity 0.8): (0.72 + 0.8 - 1) / 0.7.
    found = corrected_rate(72, 100, 50, 5, 40, 8)
    assert found.value == pytest.approx(float(Fraction(52, 70)), abs=1e-12)
    assert found.sensitivity == pytest.approx(0.9)
    assert found.specificity == pytest.approx(0.8)
    assert found.refused is None


def test_a_perfect_judge_changes_nothing_in_the_estimate() -> None:
    assert rogan_gladen(0.63, 1.0, 1.0) == pytest.approx(0.63)
    assert corrected_rate(63, 100, 40, 0, 40, 0).value == pytest.approx(0.63)


def test_the_estimate_is_clipped_to_the_scale() -> None:
    # Fewer passes than the judge's false accepts alone would give: below 0, shown as 0.
    assert rogan_gladen(0.05, 0.9, 0.8) == 0.0
    assert rogan_gladen(0.99, 0.9, 0.95) == 1.0


def test_the_interval_holds_the_estimate_and_is_wider_than_the_run_alone() -> None:
    low, high = corrected_rate(72, 100, 50, 5, 40, 8).interval or (0, 0)
    assert low < float(Fraction(52, 70)) < high
    # A calibration of many labels leaves little more than the run's own sampling error.
    big_low, big_high = lang_reiczigel(72, 100, 90_000, 100_000, 80_000, 100_000)
    assert high - low > big_high - big_low
    assert low >= 0.0 and high <= 1.0


def test_the_interval_matches_a_brute_force_monte_carlo_reference() -> None:
    # The sampling distribution of the Rogan–Gladen estimate, drawn directly: the run's
    # passes and both labelled samples redrawn at the estimated rates. At these sizes
    # its 2.5% and 97.5% quantiles and Lang & Reiczigel's limits agree to about a point.
    rng = np.random.default_rng(7)
    n, x, n_se, tp, n_sp, tn = 2000, 1300, 400, 360, 400, 340
    se, sp = tp / n_se, tn / n_sp
    truth = rogan_gladen(x / n, se, sp)
    observed = truth * se + (1 - truth) * (1 - sp)
    draws = 200_000
    p = rng.binomial(n, observed, draws) / n
    s = rng.binomial(n_se, se, draws) / n_se
    c = rng.binomial(n_sp, sp, draws) / n_sp
    estimates = (p + c - 1) / (s + c - 1)
    ref_low, ref_high = np.quantile(estimates, [0.025, 0.975])
    low, high = lang_reiczigel(x, n, tp, n_se, tn, n_sp)
    assert low == pytest.approx(ref_low, abs=0.012)
    assert high == pytest.approx(ref_high, abs=0.012)


@pytest.mark.parametrize(
    ("false_accept", "false_reject", "labels", "run", "truth"),
    [
        (0.0, 0.0, 30, 50, 0.6),
        (0.3, 0.05, 30, 200, 0.5),
        (0.05, 0.3, 100, 1000, 0.8),
        (0.2, 0.2, 500, 5000, 0.3),
        (0.1, 0.0, 60, 50, 0.9),
    ],
)
def test_simulated_coverage_holds_at_the_nominal_level(
    false_accept: float, false_reject: float, labels: int, run: int, truth: float
) -> None:
    """Seeded: the labels are a random half human-pass, half human-fail sample; the run's
    judge passes a human-pass answer with probability 1 - false_reject and a human-fail one
    with probability false_accept. The full grid is bench/judge_correction.py's."""
    rng = random.Random(f"{false_accept}-{false_reject}-{labels}-{run}-{truth}")
    reps, covered, counted = 1500, 0, 0
    observed = truth * (1 - false_reject) + (1 - truth) * false_accept
    nrng = np.random.default_rng(rng.randrange(2**32))
    for _ in range(reps):
        human_pass = int(nrng.binomial(labels, 0.5))
        human_fail = labels - human_pass
        rejects = int(nrng.binomial(human_pass, false_reject))
        accepts = int(nrng.binomial(human_fail, false_accept))
        passed = int(nrng.binomial(run, observed))
        found = corrected_rate(passed, run, human_pass, rejects, human_fail, accepts)
        if found.interval is None:
            continue
        counted += 1
        covered += found.interval[0] <= truth <= found.interval[1]
    assert counted > reps * 0.9
    # 1,500 draws: a coverage of 95% shows above 93.5% with more than 97% probability.
    assert covered / counted >= 0.935


def test_too_small_a_calibration_is_refused_with_the_reason() -> None:
    found = corrected_rate(70, 100, 9, 1, 40, 2)
    assert found.value is None and found.interval is None
    assert found.refused is not None
    assert "too small" in found.refused and "9 labelled human-pass" in found.refused


def test_a_judge_no_better_than_chance_is_refused() -> None:
    # Sensitivity 0.5 + specificity 0.5 = 1: its verdicts say nothing about the answers.
    found = corrected_rate(50, 100, 20, 10, 20, 10)
    assert found.value is None
    assert found.refused is not None and "no better than chance" in found.refused
    with pytest.raises(ValueError):
        rogan_gladen(0.5, 0.4, 0.5)
