"""Clopper–Pearson intervals against scipy's exact binomial interval and published values.

Reference data: tests/data/stats_reference_values.json (provenance in tests/data/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import binomtest

from assay.metrics import IntervalSetting, clopper_pearson, interval, rate, wilson
from assay.metrics._intervals import score_limits, score_limits_array

REFERENCE = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "stats_reference_values.json").read_text()
)["clopper_pearson"]
GRID: list[dict[str, Any]] = REFERENCE["grid"]
PUBLISHED: list[dict[str, Any]] = REFERENCE["published"]
STALE: list[dict[str, Any]] = REFERENCE["negative_test_stale_boost_table_off_by_one_lower"]["rows"]


def _scipy_exact(x: int, n: int, confidence: float) -> tuple[float, float]:
    ci = binomtest(x, n).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


SCIPY_POINTS = [
    (x, n, c)
    for n in (1, 2, 3, 5, 6, 7, 10, 20, 50, 137)
    for x in sorted({0, 1, n // 3, n // 2, n - 1, n})
    for c in (0.8, 0.9, 0.95, 0.99)
    if 0 <= x <= n
]


@pytest.mark.parametrize(("x", "n", "confidence"), SCIPY_POINTS)
def test_matches_scipy_exact_binomial_interval(x: int, n: int, confidence: float) -> None:
    low, high = clopper_pearson(x, n, confidence)
    ref_low, ref_high = _scipy_exact(x, n, confidence)
    assert low == pytest.approx(ref_low, abs=1e-9)
    assert high == pytest.approx(ref_high, abs=1e-9)


@pytest.mark.parametrize("n", [1, 2, 6, 30, 1000])
def test_zero_of_n_and_n_of_n_have_closed_forms(n: int) -> None:
    alpha = 0.05
    assert clopper_pearson(0, n) == (0.0, pytest.approx(1 - (alpha / 2) ** (1 / n)))
    assert clopper_pearson(n, n) == (pytest.approx((alpha / 2) ** (1 / n)), 1.0)
    assert _scipy_exact(0, n, 0.95)[0] == 0.0
    assert _scipy_exact(n, n, 0.95)[1] == 1.0


@pytest.mark.parametrize("row", GRID, ids=[f"{r['x']}/{r['n']}@{r['confidence']}" for r in GRID])
def test_matches_the_reference_grid(row: dict[str, Any]) -> None:
    low, high = clopper_pearson(row["x"], row["n"], row["confidence"])
    assert low == pytest.approx(row["lower"], abs=1e-10)
    assert high == pytest.approx(row["upper"], abs=1e-10)


@pytest.mark.parametrize(
    "row", PUBLISHED, ids=[f"{r['x']}/{r['n']}@{r['confidence']}" for r in PUBLISHED]
)
def test_matches_published_values_to_their_printed_digits(row: dict[str, Any]) -> None:
    low, high = clopper_pearson(row["x"], row["n"], row["confidence"])
    tolerance = 0.5 * 10 ** -row["digits"] + 1e-12
    assert abs(low - row["lower"]) <= tolerance
    assert abs(high - row["upper"]) <= tolerance


def test_nist_handbook_example() -> None:
    low, high = clopper_pearson(4, 20, 0.90)
    assert (round(low, 8), round(high, 8)) == (0.07135388, 0.40102812)


@pytest.mark.parametrize("row", STALE, ids=[f"{r['x']}/{r['n']}@{r['confidence']}" for r in STALE])
def test_does_not_match_the_off_by_one_table(row: dict[str, Any]) -> None:
    low, high = clopper_pearson(row["x"], row["n"], row["confidence"])
    assert low == pytest.approx(row["correct_lower"], abs=1e-10)
    assert high == pytest.approx(row["correct_upper"], abs=1e-10)
    # The stale table's lower limits come from Beta^-1(alpha/2; x+1, n-x): far from ours.
    assert abs(low - row["stale_lower"]) > 10**-5
    assert low != pytest.approx(row["buggy_formula_lower_Beta_inv_alpha2_x_plus_1_n_minus_x"])


def test_the_seed_headline_interval() -> None:
    low, high = clopper_pearson(1, 3)
    assert (f"{low:.1%}", f"{high:.1%}") == ("0.8%", "90.6%")


@pytest.mark.parametrize(("x", "n"), [(0, 5), (3, 5), (5, 5), (17, 40)])
def test_wilson_contains_the_estimate_and_stays_in_unit_interval(x: int, n: int) -> None:
    low, high = wilson(x, n)
    assert 0.0 <= low <= x / n <= high <= 1.0
    assert interval(x, n, method="wilson") == (low, high)


@pytest.mark.parametrize(("x", "n"), [(-1, 3), (4, 3), (0, 0)])
def test_rejects_impossible_counts(x: int, n: int) -> None:
    with pytest.raises(ValueError):
        clopper_pearson(x, n)


def test_a_zero_denominator_gives_null_never_zero() -> None:
    r = rate(0, 0, "substantive answers")
    assert r.value is None
    assert r.ci is None
    assert r.na_reason == "no substantive answers"


def test_rate_carries_the_interval_of_its_method() -> None:
    r = rate(1, 3, "substantive answers", numerator_name="passing answers")
    assert r.ci == clopper_pearson(1, 3)
    assert r.method == "clopper-pearson"
    assert rate(1, 3, "x", interval=IntervalSetting(method="wilson")).ci == wilson(1, 3)
    assert rate(1, 3, "x", interval=IntervalSetting(0.9)).ci == clopper_pearson(1, 3, 0.9)


@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.8, 0.99])
def test_wilson_on_arrays_is_the_scalar_interval_bit_for_bit(confidence: float) -> None:
    for n in [*range(1, 60), 263, 1000]:
        counts = [*range(n + 1), *(x + 0.25 for x in range(n))]
        low, high = score_limits_array(np.array(counts), n, confidence)
        assert [(float(lo), float(hi)) for lo, hi in zip(low, high, strict=True)] == [
            score_limits(x, n, confidence) for x in counts
        ], n
