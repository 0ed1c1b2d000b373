"""The flagging rule by simulation: with no true change, fewer than 5% of consecutive
pairs are flagged; with a true change, most are.

Each simulated run of an unchanged configuration draws every case's outcome afresh with
that case's own pass probability (cases differ: some nearly always pass, some rarely, some
are coin flips), which is what repeating a run of a stochastic application does.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tests.trend_stores import dataset

from assay.trend import SuiteRun, build_trend

from .helpers import suite_run

CASES = 60
SERIES = 60
RUNS = 10
DATA = dataset(CASES)


def _probabilities(rng: random.Random) -> list[float]:
    return [rng.choice((0.05, 0.2, 0.5, 0.8, 0.95, 0.99)) for _ in range(CASES)]


def _series(rng: random.Random, shift_at: int | None = None, shift: float = 0.0) -> list[SuiteRun]:
    base = _probabilities(rng)
    runs = []
    for index in range(RUNS):
        moved = shift_at is not None and index >= shift_at
        probs = [min(1.0, p + shift) if moved else p for p in base]
        passing = [i for i, p in enumerate(probs) if rng.random() < p]
        runs.append(suite_run(f"r{index}", index, DATA, passing))
    return runs


def _flags(runs: Sequence[SuiteRun]) -> list[bool]:
    return [p.change.flagged for p in build_trend("sim", runs).points[1:] if p.change]


def test_no_true_change_flags_fewer_than_5_percent_of_pairs() -> None:
    rng = random.Random(20261201)
    flags = [flag for _ in range(SERIES) for flag in _flags(_series(rng))]
    assert len(flags) == SERIES * (RUNS - 1)
    assert sum(flags) / len(flags) < 0.05


def test_a_true_change_is_flagged_in_most_series() -> None:
    rng = random.Random(7)
    hits = [_flags(_series(rng, shift_at=6, shift=0.3))[5] for _ in range(20)]
    assert sum(hits) >= 15


def test_run_level_drift_is_what_the_spread_condition_holds_back() -> None:
    """Runs whose every case shifts together by chance (sd 0.12 in pass probability): the
    paired test alone flags many such pairs; requiring the spread flags less than half."""
    rng = random.Random(5)
    flagged = by_test = pairs = 0
    for _ in range(SERIES):
        base = _probabilities(rng)
        runs = []
        for index in range(RUNS):
            shift = rng.gauss(0, 0.12)
            passing = [i for i, p in enumerate(base) if rng.random() < p + shift]
            runs.append(suite_run(f"r{index}", index, DATA, passing))
        for point in build_trend("sim", runs).points[1:]:
            assert point.change is not None and point.change.p_value is not None
            pairs += 1
            flagged += point.change.flagged
            by_test += point.change.p_value < 0.05
    assert pairs == SERIES * (RUNS - 1)
    assert flagged < by_test / 2
