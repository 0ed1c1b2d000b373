"""Wilson, the clustered interval and the paired-difference interval against a second,
independent reference each (the first references live beside each function's own tests)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from scipy.stats import beta, binomtest, t

from assay.metrics import (
    clopper_pearson,
    clustered_rate,
    effective_interval,
    paired_delta_interval,
    wilson,
)

# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Stat Med 17:857-872, Table I, method 3 (score interval without continuity
# correction), printed to four decimals.
NEWCOMBE_1998_WILSON = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("x", "n", "low", "high"), NEWCOMBE_1998_WILSON)
def test_wilson_matches_newcombes_published_table(x: int, n: int, low: float, high: float) -> None:
    got = wilson(x, n)
    assert (round(got[0], 4), round(got[1], 4)) == (low, high)


@pytest.mark.parametrize(
    ("x", "n", "confidence"),
    [(x, n, c) for n in (1, 3, 6, 20, 137) for x in {0, 1, n // 2, n} for c in (0.8, 0.9, 0.95)],
)
def test_wilson_matches_scipy(x: int, n: int, confidence: float) -> None:
    ci = binomtest(x, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert wilson(x, n, confidence) == pytest.approx((ci.low, ci.high), abs=1e-12)


# The clustered interval: Korn & Graubard (1998), Survey Methodology 24:193-201.


@pytest.mark.parametrize(("x", "n"), [(2.5, 7.25), (0.4, 3.0), (11.2, 12.0), (5.0, 9.5)])
def test_effective_interval_is_the_beta_quantile_interval(x: float, n: float) -> None:
    # Korn & Graubard's eq. (2): Clopper-Pearson written with beta quantiles, evaluated at
    # the effective counts; scipy.stats.beta.ppf is an independent implementation.
    low, high = effective_interval(x, n)
    assert low == pytest.approx(beta.ppf(0.025, x, n - x + 1), abs=1e-12)
    assert high == pytest.approx(beta.ppf(0.975, x + 1, n - x), abs=1e-12)


def test_clustered_rate_by_hand_in_exact_arithmetic() -> None:
    # Eight cases of four trials passing 4, 3, 3, 3, 2, 2, 2 and 1 times: p = 20/32 = 5/8;
    # residuals r = y - p m = 3/2, 1/2 (x3), -1/2 (x3), -3/2 (sum of squares 6);
    # v = N/(N-1) sum r^2 / (sum m)^2 = 8/7 * 6/1024 = 3/448;
    # n* = p (1 - p) / v = (15/64) / (3/448) = 35;
    # Satterthwaite's df = (sum r^2)^2 / sum r^4 * (N-1)/N = 36 / (42/4) * 7/8 = 3;
    # n* is at most the 32 trials (a design effect below 1 is truncated to 1): n* = 32;
    # n*_df = n* (t_31 / t_3)^2 at 97.5% = 13.14 (above the 8 cases).
    successes, sizes = [4, 3, 3, 3, 2, 2, 2, 1], [4] * 8
    p = Fraction(sum(successes), sum(sizes))
    r = [y - p * m for y, m in zip(successes, sizes, strict=True)]
    v = Fraction(8, 7) * sum(x * x for x in r) / sum(sizes) ** 2
    n_star = p * (1 - p) / v
    df = sum(x * x for x in r) ** 2 / sum(x**4 for x in r) * Fraction(7, 8)
    assert (p, v, n_star, df) == (Fraction(5, 8), Fraction(3, 448), 35, 3)
    n_df = 32 * (t.ppf(0.975, 31) / t.ppf(0.975, 3)) ** 2
    assert n_df == pytest.approx(13.1426, abs=1e-4)
    est = clustered_rate(successes, sizes)
    assert est is not None
    assert est.effective_n == pytest.approx(n_df)
    assert est.design_effect == pytest.approx(32 / n_df)
    x = float(p) * n_df
    expected = (beta.ppf(0.025, x, n_df - x + 1), beta.ppf(0.975, x + 1, n_df - x))
    assert est.ci == pytest.approx(expected, abs=1e-12)


def _coverage(clustered: bool, rng: random.Random) -> float:
    """Share of 400 simulated evaluations (30 cases x 5 trials, each case with its own pass
    probability drawn from Beta(0.5, 0.5), true mean 0.5) whose 95% interval covers 0.5."""
    hits = 0
    for _ in range(400):
        successes = []
        for _ in range(30):
            p = rng.betavariate(0.5, 0.5)
            successes.append(sum(rng.random() < p for _ in range(5)))
        if clustered:
            est = clustered_rate(successes, [5] * 30)
            assert est is not None
            low, high = est.ci
        else:
            low, high = clopper_pearson(sum(successes), 150)
        hits += low <= 0.5 <= high
    return hits / 400


def test_clustered_interval_keeps_its_coverage_where_the_naive_one_loses_it() -> None:
    # The reference here is the definition of a 95% interval: simulated coverage.
    clustered = _coverage(True, random.Random(7))
    naive = _coverage(False, random.Random(7))
    assert clustered >= 0.93
    assert naive < 0.85


# The paired difference: Newcombe (1998), Stat Med 17:2635-2650, method 10. The first
# reference (Fagerland, Lydersen & Laake 2017, ch. 8) is in test_paired_stats.py; here it is
# rebuilt from its definition on scipy's Wilson limits.


def _newcombe_from_scipy(a: int, b: int, c: int, d: int) -> tuple[float, float]:
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    one = binomtest(a + b, n).proportion_ci(method="wilson")
    two = binomtest(a + c, n).proportion_ci(method="wilson")
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    ad_bc = a * d - b * c
    corrected = ad_bc - n / 2 if ad_bc > n / 2 else (0 if ad_bc >= 0 else ad_bc)
    phi = corrected / math.sqrt(margins) if margins else 0.0
    d1, u1 = p1 - one.low, one.high - p1
    d2, u2 = p2 - two.low, two.high - p2
    delta = p1 - p2
    return (
        delta - math.sqrt(d1**2 - 2 * phi * d1 * u2 + u2**2),
        delta + math.sqrt(u1**2 - 2 * phi * u1 * d2 + d2**2),
    )


@pytest.mark.parametrize(
    "table",
    [(59, 6, 16, 80), (1, 1, 7, 12), (5, 3, 1, 5), (20, 1, 9, 5), (0, 4, 0, 6), (40, 0, 0, 2)],
)
def test_paired_interval_matches_newcombes_definition_on_scipy(
    table: tuple[int, int, int, int],
) -> None:
    # (both, fixed, broken, neither): the candidate's rate is both + fixed.
    both, fixed, broken, neither = table
    expected = _newcombe_from_scipy(both, fixed, broken, neither)
    assert paired_delta_interval(both, fixed, broken, neither) == pytest.approx(expected)


def _holm_rejects(p_values: list[float], alpha: float) -> set[int]:
    """Holm (1979) as he states the procedure: test the sorted p-values in turn, rejecting
    p(i) while p(i) <= alpha / (m - i + 1), and stop at the first one kept."""
    m = len(p_values)
    rejected: set[int] = set()
    for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[i] > alpha / (m - rank):
            break
        rejected.add(i)
    return rejected


def test_holm_adjusted_values_reject_exactly_what_holms_procedure_rejects() -> None:
    from assay.metrics import holm_adjust

    rng = random.Random(1979)
    for _ in range(2000):
        m = rng.randint(1, 12)
        p_values = [rng.choice([rng.random(), rng.random() / 50]) for _ in range(m)]
        alpha = rng.choice([0.01, 0.05, 0.1, 0.2])
        adjusted = holm_adjust(p_values)
        # A tiny tolerance: (m - j + 1)·p and alpha / (m - j + 1) round differently.
        by_adjusted = {i for i, a in enumerate(adjusted) if a <= alpha * (1 + 1e-12)}
        assert by_adjusted == _holm_rejects(p_values, alpha)
