"""Power, widths and sample sizes (assay.metrics._power), each checked against a direct
computation: the interval function itself for widths, every outcome of a few pairs
enumerated for the tests' power, the exact test itself for its critical values."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from assay.metrics import (
    IntervalSetting,
    cases_for_drop,
    cases_for_half_width,
    cases_with_trials,
    clustered_observations,
    clustered_rate,
    design_effect,
    half_widths,
    interval,
    intraclass,
    mcnemar_critical,
    mcnemar_exact,
    mcnemar_power,
    rate_half_width,
    smallest_effect,
    smallest_n,
    trial_discordance,
    trials_drop_table,
)

SETTINGS = [
    IntervalSetting(),
    IntervalSetting(0.9),
    IntervalSetting(0.95, "wilson"),
    IntervalSetting(0.8, "wilson"),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=str)
@pytest.mark.parametrize("n", [1, 2, 7, 40, 101, 333])
def test_half_widths_are_those_of_the_interval_itself(setting: IntervalSetting, n: int) -> None:
    expected = []
    for x in range(n + 1):
        low, high = interval(x, n, setting.confidence, setting.method)
        expected.append(max(x / n - low, high - x / n))
    assert half_widths(n, setting).tolist() == expected  # bit for bit


def test_the_worst_case_is_the_widest_outcome() -> None:
    assert rate_half_width(50) == max(half_widths(50).tolist())


@pytest.mark.parametrize(("n", "p", "assurance"), [(30, 0.9, 0.95), (80, 0.3, 0.8), (12, 0.5, 0.5)])
def test_the_width_at_an_expected_rate_is_the_assurance_quantile(
    n: int, p: float, assurance: float
) -> None:
    widths = half_widths(n).tolist()
    weight = [math.comb(n, x) * p**x * (1 - p) ** (n - x) for x in range(n + 1)]
    found = rate_half_width(n, p, assurance=assurance)
    reached = sum(w for h, w in zip(widths, weight, strict=True) if h <= found)
    below = sum(w for h, w in zip(widths, weight, strict=True) if h < found)
    assert reached >= assurance - 1e-9  # the promise holds at this width
    assert below < assurance  # and no smaller width keeps it


@pytest.mark.parametrize("setting", SETTINGS, ids=str)
@pytest.mark.parametrize(("width", "expected"), [(0.1, None), (0.05, 0.9), (0.15, 0.2)])
def test_the_cases_for_a_width_are_the_fewest_that_reach_it(
    setting: IntervalSetting, width: float, expected: float | None
) -> None:
    n = cases_for_half_width(width, expected, interval=setting)
    assert rate_half_width(n, expected, interval=setting) <= width
    assert rate_half_width(n - 1, expected, interval=setting) > width


def test_the_worst_case_needs_about_the_textbook_count() -> None:
    # 95%, ±5 points: the normal approximation says 385; the exact interval is wider
    assert 385 <= cases_for_half_width(0.05) <= 420


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2, 0.0703125])
def test_critical_values_are_where_the_exact_test_starts_rejecting(alpha: float) -> None:
    for d in range(0, 80):
        c = mcnemar_critical(d, alpha)
        for broken in range(d + 1):
            rejects = mcnemar_exact(d - broken, broken) <= alpha and broken > d - broken
            assert rejects == (broken >= c), (d, broken, c)


def _enumerated_power(n: int, broken: float, fixed: float, rejects: object) -> float:
    """The power summed over every sequence of n pairs, each concordant, fixed or broken."""
    total = 0.0
    for pairs in itertools.product("cfb", repeat=n):
        f, b = pairs.count("f"), pairs.count("b")
        if rejects(f, b):  # type: ignore[operator]
            total += fixed**f * broken**b * (1 - fixed - broken) ** (n - f - b)
    return total


@pytest.mark.parametrize("n", [1, 5, 8])
@pytest.mark.parametrize(("broken", "fixed"), [(0.3, 0.05), (0.5, 0.1), (0.2, 0.2), (0.6, 0.0)])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_mcnemar_power_is_every_outcome_enumerated(
    n: int, broken: float, fixed: float, alpha: float
) -> None:
    def rejects(f: int, b: int) -> bool:
        return b > f and mcnemar_exact(f, b) <= alpha

    assert mcnemar_power(n, broken, fixed, alpha) == pytest.approx(
        _enumerated_power(n, broken, fixed, rejects), abs=1e-12
    )


def test_mcnemar_power_with_no_discordance_is_zero() -> None:
    assert mcnemar_power(100, 0.0, 0.0) == 0.0


def test_the_exact_test_holds_its_level_under_no_change() -> None:
    for n in (10, 40, 200):
        assert mcnemar_power(n, 0.1, 0.1, 0.05) <= 0.025 + 1e-12  # one side of a 5% test


@pytest.mark.parametrize(("broken", "fixed"), [(0.1, 0.02), (0.06, 0.04), (0.3, 0.1)])
def test_the_cases_for_a_drop_are_the_fewest_with_the_power(broken: float, fixed: float) -> None:
    n = cases_for_drop(broken, fixed, power=0.8)
    assert mcnemar_power(n, broken, fixed) >= 0.8
    # below the crossing the saw-tooth may reach the power again only above n
    assert all(mcnemar_power(m, broken, fixed) < 0.8 for m in range(max(1, n - 30), n))


def test_the_design_effect_is_the_clustered_interval_s() -> None:
    hits, sizes = [3, 0, 2, 1, 3], [3, 3, 3, 3, 3]
    # by hand in fractions: p = 9/15, residuals 1.2, −1.8, 0.2, −0.8, 1.2
    p = Fraction(9, 15)
    squares = sum((Fraction(y) - p * 3) ** 2 for y in hits)
    variance = squares / 15**2 * Fraction(5, 4)
    assert design_effect(hits, sizes) == pytest.approx(float(15 * variance / (p * (1 - p))))
    # the clustered interval's effective size before its df factor and floor is units / deff
    est = clustered_rate(hits, sizes, interval=IntervalSetting(0.999999))
    assert est is not None
    assert est.effective_n <= 15 / design_effect(hits, sizes) + 1e-9  # (df factor ≤ 1)


def test_the_design_effect_needs_spread() -> None:
    assert design_effect([2, 2], [2, 2]) is None  # every unit passed
    assert design_effect([1], [2]) is None  # one case
    assert design_effect([2, 0, 2, 0], [2, 2, 2, 2]) == 2.0  # trials always agree


def test_intraclass_inverts_kish() -> None:
    assert intraclass(1 + 4 * 0.25, 5) == pytest.approx(0.25)
    assert intraclass(0.9, 3) == 0.0


def test_trial_discordance_counts_disagreeing_pairs() -> None:
    # a case passing 1 of 3: of its 3 pairs of trials, 2 disagree
    assert trial_discordance([1, 3], [3, 3]) == pytest.approx((2 / 3 + 0) / 2)
    assert trial_discordance([1], [1]) is None


def test_trials_carry_fewer_observations_the_more_they_agree() -> None:
    independent = clustered_observations(100, 4, 0.0, 0.95)
    assert 390 < independent <= 400  # the df factor trims a little
    assert clustered_observations(100, 4, 1.0, 0.95) == 100.0  # never fewer than the cases
    n = cases_with_trials(300, 4, 0.2, 0.95)
    assert (
        clustered_observations(n, 4, 0.2, 0.95) >= 300 > clustered_observations(n - 1, 4, 0.2, 0.95)
    )


def test_smallest_n_finds_a_value_below_the_crossing() -> None:
    # holds at 5 and from 9 on: bisection lands at 9, the scan below it finds 5
    assert smallest_n(lambda n: n == 5 or n >= 9, guess=20) == 5
    assert smallest_n(lambda n: n >= 1) == 1


def test_smallest_effect_is_bisected() -> None:
    assert smallest_effect(lambda e: e >= 0.123, 0.0, 1.0) == pytest.approx(0.123, abs=1e-4)
    assert smallest_effect(lambda e: False, 0.0, 1.0) is None


def test_inputs_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="half-width"):
        cases_for_half_width(0.7)
    with pytest.raises(ValueError, match="more broken than fixed"):
        cases_for_drop(0.05, 0.05)
    with pytest.raises(ValueError, match="add up to more than 1"):
        mcnemar_power(10, 0.7, 0.5)
    with pytest.raises(ValueError, match="at least one pair"):
        mcnemar_power(0, 0.1, 0.0)
    assert np.isfinite(rate_half_width(1))


def _table_by_integration(rate: float, icc: float, trials: int, drop: float) -> tuple[float, float]:
    """The sign test's per-case table, integrating every pair of pass counts over π."""
    from scipy.integrate import quad
    from scipy.stats import beta, binom

    a, b = rate * (1 / icc - 1), (1 - rate) * (1 / icc - 1)
    share = drop / rate
    fewer = more = none = 0.0
    for x in range(trials + 1):
        none_x = quad(lambda p, x=x: beta.pdf(p, a, b) * binom.pmf(x, trials, p), 0, 1)[0]
        if x == 0:
            none = none_x
        for y in range(trials + 1):
            both = quad(
                lambda p, x=x, y=y: (
                    beta.pdf(p, a, b) * binom.pmf(x, trials, p) * binom.pmf(y, trials, p)
                ),
                0,
                1,
            )[0]
            if y < x:
                fewer += both
            elif y > x:
                more += both
    return (1 - share) * fewer + share * (1 - none), (1 - share) * more


@pytest.mark.parametrize(
    ("rate", "icc", "trials", "drop"),
    [(0.8, 0.3, 3, 0.1), (0.6, 0.7, 2, 0.2), (0.9, 0.05, 4, 0.05)],
)
def test_the_trials_table_is_the_beta_binomial_integrated(
    rate: float, icc: float, trials: int, drop: float
) -> None:
    found = trials_drop_table(rate, icc, trials, drop)
    assert found == pytest.approx(_table_by_integration(rate, icc, trials, drop), abs=1e-7)


def test_the_trials_table_at_its_edges() -> None:
    # ρ = 1: cases always pass or always fail: only the broken ones are discordant
    assert trials_drop_table(0.8, 1.0, 3, 0.1) == pytest.approx((0.1, 0.0))
    # one trial: the one-trial table, the runs' own flips 2p(1 − p)(1 − ρ) split evenly
    flips = 2 * 0.8 * 0.2 * (1 - 0.4)
    share = 0.1 / 0.8
    expected = ((1 - share) * flips / 2 + 0.1, (1 - share) * flips / 2)
    assert trials_drop_table(0.8, 0.4, 1, 0.1) == pytest.approx(expected)
    # ρ = 0: every case at the rate, its counts binomial
    x = np.arange(3)
    counts = [math.comb(2, int(k)) * 0.7**k * 0.3 ** (2 - k) for k in x]
    fewer = sum(counts[i] * counts[j] for i in range(3) for j in range(3) if j < i)
    share = 0.1 / 0.7
    assert trials_drop_table(0.7, 0.0, 2, 0.1) == pytest.approx(
        ((1 - share) * fewer + share * (1 - counts[0]), (1 - share) * fewer)
    )
    with pytest.raises(ValueError, match="needs a rate above it"):
        trials_drop_table(0.1, 0.5, 2, 0.2)
