"""Exact McNemar and the paired task-success interval, against published values and scipy.

Reference data: tests/data/stats_reference_values.json (provenance in tests/data/README.md).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import binomtest

from assay.metrics import (
    clustered_delta,
    mcnemar_exact,
    paired_delta_interval,
    paired_delta_limits,
)

REFERENCE: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "stats_reference_values.json").read_text()
)["mcnemar"]["cases"]


def test_fagerland_worked_example_is_nine_over_128() -> None:
    # Fagerland, Lydersen & Laake (2013), Bentur et al. table: discordant 1 and 7.
    assert mcnemar_exact(1, 7) == float(Fraction(9, 128))
    assert mcnemar_exact(7, 1) == mcnemar_exact(1, 7)


@pytest.mark.parametrize("case", REFERENCE, ids=lambda c: f"{c['b_n12']}-{c['c_n21']}")
def test_matches_reference_exact_p_values(case: dict[str, Any]) -> None:
    exact = float(Fraction(case["exact_two_sided_fraction"]))
    assert mcnemar_exact(case["b_n12"], case["c_n21"]) == pytest.approx(exact, rel=1e-12)
    assert mcnemar_exact(case["c_n21"], case["b_n12"]) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(("b", "c"), [(0, 1), (3, 3), (2, 9), (15, 4), (40, 55), (0, 12)])
def test_matches_scipy_binomial_test_on_discordant_pairs(b: int, c: int) -> None:
    expected = binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)


def test_no_discordant_pairs_gives_p_one() -> None:
    assert mcnemar_exact(0, 0) == 1.0


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_newcombe_matches_fagerland_book_example() -> None:
    # Fagerland, Lydersen & Laake (2017), ch. 8, Cavo et al.: table [[59, 6], [16, 80]];
    # the first run's margin is 65/161 and the second's 75/161: -0.0621 (-0.1186 to -0.0046).
    low, high = paired_delta_interval(both=59, fixed=6, broken=16, neither=80)
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)


@pytest.mark.parametrize(
    "cells", [(0, 0, 0, 10), (10, 0, 0, 0), (3, 5, 0, 2), (1, 7, 1, 12), (20, 1, 9, 5)]
)
def test_newcombe_contains_the_estimate_and_stays_in_range(
    cells: tuple[int, int, int, int],
) -> None:
    both, fixed, broken, neither = cells
    n = sum(cells)
    low, high = paired_delta_interval(both, fixed, broken, neither)
    delta = (fixed - broken) / n
    assert -1 <= low <= delta <= high <= 1
    # Swapping the runs mirrors the interval.
    low2, high2 = paired_delta_interval(both, broken, fixed, neither)
    assert (low2, high2) == pytest.approx((-high, -low))


def test_newcombe_narrows_with_more_data_and_widens_with_confidence() -> None:
    small = paired_delta_interval(5, 3, 1, 5)
    large = paired_delta_interval(50, 30, 10, 50)
    assert large[1] - large[0] < small[1] - small[0]
    wide = paired_delta_interval(5, 3, 1, 5, confidence=0.99)
    assert wide[1] - wide[0] > small[1] - small[0]


@pytest.mark.parametrize(("n", "confidence"), [(1, 0.95), (9, 0.95), (14, 0.9)])
def test_newcombe_on_arrays_is_the_scalar_interval_bit_for_bit(n: int, confidence: float) -> None:
    tables = [
        (a, f, b, n - a - f - b)
        for a in range(n + 1)
        for f in range(n + 1 - a)
        for b in range(n + 1 - a - f)
    ]
    columns = [np.array(column) for column in zip(*tables, strict=True)]
    low, high = paired_delta_limits(*columns, confidence=confidence)
    assert [(float(lo), float(hi)) for lo, hi in zip(low, high, strict=True)] == [
        paired_delta_interval(*t, confidence) for t in tables
    ]


def test_newcombe_on_arrays_needs_one_number_of_pairs() -> None:
    with pytest.raises(ValueError, match="same number of pairs"):
        paired_delta_limits(np.array([1, 2]), np.array([0, 0]), np.array([0, 0]), np.array([1, 1]))


def test_clustered_delta_with_one_trial_is_newcombe() -> None:
    tables = [(1, 0, 0, 0)] * 5 + [(0, 1, 0, 0)] * 3 + [(0, 0, 1, 0)] + [(0, 0, 0, 1)] * 2
    value, ci, deff = clustered_delta(tables)
    assert value == pytest.approx(2 / 11)
    assert deff == pytest.approx(1.0)
    assert ci == pytest.approx(paired_delta_interval(5, 3, 1, 2))


def test_clustered_delta_is_wider_when_trials_of_a_case_agree() -> None:
    # Three trials per case, each case's trials all changing the same way.
    tables = [(3, 0, 0, 0)] * 4 + [(0, 3, 0, 0)] * 4 + [(0, 0, 3, 0)] + [(0, 0, 0, 3)] * 3
    value, ci, deff = clustered_delta(tables)
    naive = paired_delta_interval(12, 12, 3, 9)
    assert value == pytest.approx(9 / 36)
    assert deff == pytest.approx(3.0)
    assert ci[1] - ci[0] > naive[1] - naive[0]
    assert ci == pytest.approx(paired_delta_interval(4, 4, 1, 3))


def test_clustered_delta_without_discordant_pairs_counts_each_case_once() -> None:
    value, ci, deff = clustered_delta([(3, 0, 0, 0)] * 5 + [(0, 0, 0, 3)])
    assert value == 0.0
    assert deff == pytest.approx(3.0)
    assert ci == pytest.approx(paired_delta_interval(5, 0, 0, 1))
    assert ci[0] < 0 < ci[1]


def test_holm_adjustment_on_a_hand_computed_example() -> None:
    from assay.metrics import holm_adjust

    # Sorted: 0.005 (×4 = 0.02), 0.01 (×3 = 0.03), 0.03 (×2 = 0.06), 0.04 (×1 = 0.04, raised
    # to the running maximum 0.06); returned in the order given.
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjust([0.5, 0.6]) == [1.0, 1.0]  # capped at 1
    assert holm_adjust([0.2]) == [0.2]  # one test: nothing to adjust
    assert holm_adjust([]) == []


@pytest.mark.parametrize(
    ("fixed", "broken"), [(0, 1), (1, 0), (3, 3), (7, 1), (40, 2), (100, 90), (1234, 1300)]
)
def test_mcnemar_tail_is_the_exact_binomial_sum(fixed: int, broken: int) -> None:
    from math import comb

    n, low = fixed + broken, min(fixed, broken)
    tail = Fraction(sum(comb(n, i) for i in range(low + 1)), 2**n)
    assert mcnemar_exact(fixed, broken) == float(min(Fraction(1), 2 * tail))


def _exact_p(fixed: int, broken: int) -> float:
    """The p-value by the plain exact sum, term after term: the reference."""
    n, low = fixed + broken, min(fixed, broken)
    term = total = 1
    for i in range(low):
        term = term * (n - i) // (i + 1)
        total += term
    return float(min(Fraction(1), 2 * Fraction(total, 2**n)))


def test_mcnemar_equals_the_term_by_term_sum_on_many_tables() -> None:
    import random

    rng = random.Random(19)
    pairs = [(a, b) for a in range(0, 40) for b in range(0, 40)]
    pairs += [(rng.randrange(0, 400), rng.randrange(0, 400)) for _ in range(600)]
    for _ in range(60):  # large tables, from p = 1 down past the smallest float
        n = rng.randrange(1_000, 9_000)
        low = n // 2 - rng.randrange(0, n // 2 + 1) // rng.choice((1, 3, 10, 40))
        pairs.append((low, n - low))
    for fixed, broken in pairs:
        assert mcnemar_exact(fixed, broken) == _exact_p(fixed, broken), (fixed, broken)
        assert mcnemar_exact(broken, fixed) == mcnemar_exact(fixed, broken)


@pytest.mark.parametrize("n", [2_200, 2_201, 3_000, 5_000])
def test_mcnemar_near_the_smallest_float_equals_the_exact_sum(n: int) -> None:
    # around the low where the p-value leaves the floats: subnormal, then 0.0
    from scipy.stats import binom

    edge = int(binom.ppf(1e-300, n, 0.5))
    for low in range(max(0, edge - 120), edge + 5, 3):
        assert mcnemar_exact(low, n - low) == _exact_p(low, n - low), low
