"""Anytime-valid tests of a rate against a threshold, for a run that stops once decided.

Cases are drawn one at a time, in a seeded random order, without replacement from the
run's ``population`` of cases; each case's score is a number in [0, 1] (its trials' mean,
or its score under the trial policy). The rate is the mean score of the whole population,
the figure the full run would report.

The test is the hedged betting confidence sequence of Waudby-Smith & Ramdas, "Estimating
means of bounded random variables by betting" (J. R. Stat. Soc. B, 2024), sections 3-4,
in its form for sampling without replacement (section 6): for a candidate rate ``m`` the
next case's conditional mean is ``m_t = (N·m − S_{t−1}) / (N − t + 1)``, and the capital

    K⁺_t(m) = ∏ (1 + λ⁺_i (X_i − m_i)),   K⁻_t(m) = ∏ (1 − λ⁻_i (X_i − m_i))

with predictable bets ``0 ≤ λ⁺_i ≤ c/m_i`` and ``0 ≤ λ⁻_i ≤ c/(1 − m_i)`` are nonnegative
martingales when the rate is ``m``; so is their average, and by Ville's inequality
``max(K⁺, K⁻)/2`` reaches ``1/α`` at any time with probability at most α. The set of ``m``
it has not reached is the confidence sequence. The bets are the predictable plug-in
(PrPl-EB) of that paper, tuned to the threshold: a bet that is valid at the threshold is
valid, and gains more, at every rate on the far side of it, so ``K⁺(threshold) ≥ 2/α``
rejects every rate at or below the threshold at once: the sequence lies wholly above it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Side = Literal["above", "below"]

SEQUENTIAL_METHOD = "betting confidence sequence (Waudby-Smith & Ramdas 2024), without replacement"
"""How the report names the confidence sequence."""

_C = 0.5  # the largest fraction of the capital a bet may risk (the paper's c)
_EXACT = 1e-12  # a sum of case scores off the threshold by rounding alone is at it


def seeded_order(ids: Sequence[str], seed: int) -> list[str]:
    """``ids`` in the random order drawn with ``seed`` (the same on every machine)."""
    order = list(ids)
    random.Random(seed).shuffle(order)
    return order


def _bet(t: int, variance: float, alpha: float) -> float:
    """The PrPl-EB bet before the t-th case, from the variance of the t-1 before it."""
    return math.sqrt(2 * math.log(2 / alpha) / (variance * t * math.log(1 + t)))


@dataclass
class SequentialTest:
    """Whether the rate of a population of ``population`` case scores lies above or below
    ``threshold``, decided with error at most ``alpha`` however long it is watched.

    ``add`` a score per case, in the order drawn; ``side`` is the verdict (None while
    undecided) and ``decided_at`` the cases drawn when it was reached. Once decided it
    stays decided: the first side reached is the verdict.
    """

    threshold: float
    population: int
    alpha: float
    drawn: int = 0
    total: float = 0.0
    side: Side | None = None
    decided_at: int | None = None
    certain: bool = False
    """True when the scores drawn settle the side whatever the cases not drawn score."""
    _log_up: float = 0.0
    _log_down: float = 0.0
    _mean_hat: float = 0.5
    _squares: float = 0.25
    _history: list[float] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha}")
        if self.population < 1:
            raise ValueError("a sequential test needs at least one case")

    @property
    def mean(self) -> float | None:
        """The mean score of the cases drawn (None before the first)."""
        return self.total / self.drawn if self.drawn else None

    def add(self, score: float) -> None:
        """One more case drawn, scoring ``score`` (between 0 and 1)."""
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a case's score must be between 0 and 1, got {score}")
        if self.drawn >= self.population:
            raise ValueError(f"all {self.population} cases were already drawn")
        t = self.drawn + 1
        left = self.population - t + 1
        centre = (self.population * self.threshold - self.total) / left
        if 0.0 < centre < 1.0:  # outside, the bound below settles it
            variance = self._squares / t
            bet = _bet(t, variance, self.alpha)
            up, down = min(bet, _C / centre), min(bet, _C / (1 - centre))
            self._log_up += math.log1p(up * (score - centre))
            self._log_down += math.log1p(-down * (score - centre))
        self.drawn, self.total = t, self.total + score
        self._history.append(score)
        self._squares += (score - self._mean_hat) ** 2
        self._mean_hat = (0.5 + self.total) / (t + 1)
        if self.side is None:
            self._decide()

    def extend(self, scores: Iterable[float]) -> None:
        """``add`` each score in turn."""
        for score in scores:
            self.add(score)

    def _decide(self) -> None:
        low = self.total / self.population  # the cases not drawn all score 0…
        high = (self.total + self.population - self.drawn) / self.population  # …or all 1
        bar = math.log(2 / self.alpha)
        side: Side | None = None
        if low > self.threshold + _EXACT:
            side, self.certain = "above", True
        elif high < self.threshold - _EXACT:
            side, self.certain = "below", True
        elif self._log_up >= bar:
            side = "above"
        elif self._log_down >= bar:
            side = "below"
        if side is not None:
            self.side, self.decided_at = side, self.drawn

    @property
    def scores(self) -> tuple[float, ...]:
        """The scores added, in order."""
        return tuple(self._history)


def confidence_sequence(
    scores: Sequence[float], population: int, threshold: float, alpha: float, grid: int = 1000
) -> tuple[float, float]:
    """The bounds of the confidence sequence for the population's rate after ``scores``,
    with the bets of ``SequentialTest`` tuned to ``threshold``, on a grid of ``grid`` steps
    (the low bound rounded down, the high one up, to the grid); the running intersection
    over every prefix of ``scores``, so it only narrows as cases are drawn."""
    import numpy as np  # deferred: only a sequential run's report computes this

    m = np.linspace(0.0, 1.0, grid + 1)
    n = population
    rejected = np.zeros_like(m, dtype=bool)
    log_up = np.zeros_like(m)
    log_down = np.zeros_like(m)
    bar = math.log(2 / alpha)
    total, squares, mean_hat = 0.0, 0.25, 0.5
    for i, x in enumerate(scores):
        t = i + 1
        left = n - t + 1
        centre_t = (n * threshold - total) / left  # the bets are those made at the threshold
        centres = (n * m - total) / left
        if 0.0 < centre_t < 1.0:
            bet = _bet(t, squares / t, alpha)
            up, down = min(bet, _C / centre_t), min(bet, _C / (1 - centre_t))
        else:
            up = down = 0.0
        inside = (centres > 0) & (centres < 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            up_m = np.where(inside, np.minimum(up, _C / centres), 0.0)
            down_m = np.where(inside, np.minimum(down, _C / (1 - centres)), 0.0)
        log_up += np.log1p(up_m * (x - centres))
        log_down += np.log1p(-down_m * (x - centres))
        total += x
        squares += (x - mean_hat) ** 2
        mean_hat = (0.5 + total) / (t + 1)
        possible = (m >= total / n - 1e-12) & (m <= (total + n - t) / n + 1e-12)
        rejected |= (log_up >= bar) | (log_down >= bar) | ~possible
    kept = np.flatnonzero(~rejected)
    if kept.size == 0:  # the grid is coarser than the set left: the mean drawn
        mean = total / max(1, len(scores))
        return mean, mean
    low = float(m[max(kept[0] - 1, 0)]) if kept[0] > 0 else 0.0
    high = float(m[min(kept[-1] + 1, grid)]) if kept[-1] < grid else 1.0
    return low, high
