"""Intervals clustered by case: wider than the naive K·N interval when trials agree within a
case, about the same when they are independent, and the ordinary interval with one trial."""

from __future__ import annotations

import random

import pytest

from assay.metrics import (
    IntervalSetting,
    clopper_pearson,
    clustered_rate,
    effective_interval,
    wilson,
)


def _width(ci: tuple[float, float]) -> float:
    return ci[1] - ci[0]


def test_perfectly_correlated_trials_count_as_one_per_case() -> None:
    # 10 cases x 5 trials; each case passes all or none of its trials.
    est = clustered_rate([5] * 6 + [0] * 4, [5] * 10)
    assert est is not None
    assert est.value == pytest.approx(0.6)
    assert est.effective_n == pytest.approx(10)
    assert est.design_effect == pytest.approx(5)
    assert est.ci == pytest.approx(clopper_pearson(6, 10))
    assert _width(est.ci) > _width(clopper_pearson(30, 50))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_correlated_data_give_a_wider_interval_than_naive(seed: int) -> None:
    rng = random.Random(seed)
    # Each case has its own pass probability (0.1 or 0.9): trials within a case agree.
    successes = []
    for _ in range(40):
        p = rng.choice([0.1, 0.9])
        successes.append(sum(rng.random() < p for _ in range(5)))
    est = clustered_rate(successes, [5] * 40)
    assert est is not None
    naive = clopper_pearson(sum(successes), 200)
    assert est.design_effect > 2
    assert _width(est.ci) > 1.3 * _width(naive)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_independent_trials_give_about_the_naive_interval(seed: int) -> None:
    rng = random.Random(seed)
    successes = [sum(rng.random() < 0.6 for _ in range(5)) for _ in range(300)]
    est = clustered_rate(successes, [5] * 300)
    assert est is not None
    naive = clopper_pearson(sum(successes), 1500)
    assert est.design_effect < 1.3
    assert _width(est.ci) == pytest.approx(_width(naive), rel=0.15)
    assert _width(est.ci) >= _width(naive) - 1e-12


def test_one_trial_per_case_is_the_ordinary_interval() -> None:
    outcomes = [1, 0, 1, 1, 0, 1, 0]
    est = clustered_rate(outcomes, [1] * 7)
    assert est is not None
    assert est.effective_n == pytest.approx(7)
    assert est.ci == pytest.approx(clopper_pearson(4, 7))
    wilsons = clustered_rate(outcomes, [1] * 7, interval=IntervalSetting(method="wilson"))
    assert wilsons is not None
    assert wilsons.ci == pytest.approx(wilson(4, 7))


def test_all_passing_falls_back_to_the_number_of_cases() -> None:
    est = clustered_rate([3, 3, 3, 3], [3, 3, 3, 3])
    assert est is not None
    assert est.effective_n == 4
    assert est.ci == pytest.approx(clopper_pearson(4, 4))


def test_empty_and_invalid_input() -> None:
    assert clustered_rate([], []) is None
    assert clustered_rate([0], [0]) is None
    with pytest.raises(ValueError):
        clustered_rate([3], [2])
    with pytest.raises(ValueError):
        clustered_rate([1, 2], [2])


def test_effective_interval_agrees_with_clopper_pearson_on_whole_numbers() -> None:
    for x, n in [(0, 5), (2, 5), (5, 5), (13, 40)]:
        assert effective_interval(x, n) == pytest.approx(clopper_pearson(x, n))
        assert effective_interval(x, n, method="wilson") == pytest.approx(wilson(x, n))


def test_non_integer_counts_sit_between_their_neighbours() -> None:
    low3, high3 = effective_interval(3, 10)
    low4, high4 = effective_interval(4, 10)
    low, high = effective_interval(3.5, 10)
    assert low3 < low < low4
    assert high3 < high < high4
