"""A plan's number of cases delivers what it promises, by simulation (seeded, a few
thousand replications): the interval is within ±w as often as promised, and the exact
McNemar and Tango tests, and compare's verdict over several trials, decide as often as
the plan's power says."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from assay.compare import Delta, non_inferiority
from assay.metrics import clustered_delta, interval, mcnemar_exact, paired_delta_interval
from assay.planning import plan

REPS = 4000
SEED = 20261207


def _se(p: float) -> float:
    return math.sqrt(p * (1 - p) / REPS)


@pytest.mark.parametrize("expected", [None, 0.85])
def test_the_planned_cases_reach_the_width(expected: float | None) -> None:
    made = plan("rate", width=0.08, expected_rate=expected)
    n = made.cases
    assert n is not None
    rng = np.random.default_rng(SEED)
    truth = 0.5 if expected is None else expected

    @cache
    def half_width(x: int) -> float:
        low, high = interval(x, n)
        return max(x / n - low, high - x / n)

    draws = rng.binomial(n, truth, size=REPS)
    within = float(np.mean([half_width(int(x)) <= 0.08 for x in draws]))
    promised = 1.0 if expected is None else 0.95
    assert within >= promised - 3 * _se(min(promised, 0.99))


def _tables(n: int, broken: float, fixed: float) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    return rng.multinomial(n, [broken, fixed, 1 - broken - fixed], size=REPS)


def test_the_planned_cases_detect_the_drop_as_often_as_promised() -> None:
    made = plan("drop", drop=0.1, discordance=0.1)
    (answer,) = made.answers
    assert answer.cases is not None and answer.achieved is not None
    tables = _tables(answer.cases, 0.05 + 0.1, 0.05)
    detected = np.mean(
        [b > f and mcnemar_exact(int(f), int(b)) <= 0.05 for b, f, _ in tables.tolist()]
    )
    assert abs(detected - answer.achieved) <= 4 * _se(answer.achieved)
    assert detected >= 0.8 - 3 * _se(0.8)


def test_the_planned_cases_show_non_inferiority_as_often_as_promised() -> None:
    made = plan("noninferiority", margin=0.1, discordance=0.1, baseline_rate=0.8)
    (answer,) = made.answers
    n = answer.cases
    assert n is not None and answer.achieved is not None
    tables = np.random.default_rng(SEED).multinomial(n, [0.75, 0.05, 0.05, 0.15], size=REPS)

    @cache
    def shown_at(both: int, fixed: int, broken: int) -> bool:
        ci = paired_delta_interval(both, fixed, broken, n - both - fixed - broken)
        delta = Delta(value=(fixed - broken) / n, ci=ci, method="Newcombe")
        return non_inferiority(delta, 0.1).passed

    shown = float(np.mean([shown_at(a, f, b) for a, f, b, _ in tables.tolist()]))
    assert abs(shown - answer.achieved) <= 4 * _se(answer.achieved)
    assert shown >= 0.8 - 3 * _se(0.8)


def _sign_test_power(
    n: int, rate: float, icc: float, trials: int, drop: float, seed: int = SEED
) -> float:
    """How often the exact sign test over cases (assay compare's test at several trials)
    detects the drop, on cases drawn from the plan's beta-binomial model."""
    rng = np.random.default_rng(seed)
    a, b = rate * (1 / icc - 1), (1 - rate) * (1 / icc - 1)
    chance = rng.beta(a, b, size=(REPS, n))
    baseline = rng.binomial(trials, chance)
    broken = rng.random((REPS, n)) < drop / rate
    candidate = np.where(broken, 0, rng.binomial(trials, chance))
    fewer = (candidate < baseline).sum(axis=1)
    more = (candidate > baseline).sum(axis=1)
    p_value = cache(mcnemar_exact)
    return float(
        np.mean(
            [d > u and p_value(int(u), int(d)) <= 0.05 for d, u in zip(fewer, more, strict=True)]
        )
    )


@pytest.mark.parametrize(
    ("rate", "icc", "trials", "drop"), [(0.8, 0.3, 3, 0.1), (0.7, 0.6, 2, 0.15)]
)
def test_a_drop_planned_over_trials_is_detected_as_often_as_promised(
    rate: float, icc: float, trials: int, drop: float
) -> None:
    flips = 2 * rate * (1 - rate) * (1 - icc)  # the discordance that means this ρ
    made = plan("drop", drop=drop, trials=trials, baseline_rate=rate, discordance=flips)
    (answer,) = made.answers
    assert answer.cases is not None and answer.achieved is not None and answer.trials == trials
    detected = _sign_test_power(answer.cases, rate, icc, trials, drop)
    assert abs(detected - answer.achieved) <= 0.02
    assert detected >= 0.8 - 0.02


def _compare_shows(
    n: int, rate: float, icc: float, trials: int, difference: float, margin: float
) -> float:
    """How often ``assay compare`` calls the candidate not worse by more than ``margin``
    over runs of ``n`` cases × ``trials`` trials drawn afresh from the plan's model (each
    case's four cells drawn at once from its pass probabilities, with another seed)."""
    rng = np.random.default_rng(SEED + 1)
    a, b = rate * (1 / icc - 1), (1 - rate) * (1 / icc - 1)
    chance = rng.beta(a, b, size=(REPS, n))
    outright = rng.random((REPS, n))
    if difference < 0:
        other = np.where(outright < -difference / rate, 0.0, chance)
    else:
        other = np.where(outright < difference / (1 - rate), 1.0, chance)
    cells = np.stack(
        [chance * other, (1 - chance) * other, chance * (1 - other), (1 - chance) * (1 - other)],
        axis=-1,
    )
    tables = rng.multinomial(trials, cells)
    shown = 0
    for run in tables.tolist():
        value, ci, _ = clustered_delta([tuple(t) for t in run])
        shown += non_inferiority(Delta(value=value, ci=ci, method="clustered"), margin).passed
    return shown / REPS


@pytest.mark.parametrize(
    ("rate", "icc", "trials", "margin", "difference"),
    [(0.8, 0.7, 3, 0.1, 0.0), (0.7, 0.4, 2, 0.15, -0.03)],
)
def test_non_inferiority_planned_over_trials_is_shown_as_often_as_promised(
    rate: float, icc: float, trials: int, margin: float, difference: float
) -> None:
    flips = 2 * rate * (1 - rate) * (1 - icc)  # the discordance that means this ρ
    made = plan(
        "noninferiority",
        margin=margin,
        difference=difference,
        trials=trials,
        baseline_rate=rate,
        discordance=flips,
    )
    (answer,) = made.answers
    assert answer.cases is not None and answer.achieved is not None and answer.trials == trials
    shown = _compare_shows(answer.cases, rate, icc, trials, difference, margin)
    assert abs(shown - answer.achieved) <= 0.02
    assert shown >= 0.8 - 0.02
