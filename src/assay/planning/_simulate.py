"""The simulated power of ``assay compare``'s non-inferiority verdict over several trials
per case: its rule (the Rao–Scott-adjusted Newcombe interval of ``clustered_delta`` wholly
above −margin, read by ``non_inferiority``) applied to runs drawn from a beta-binomial
model of the trials, with a seed, so that the same inputs give the same plan."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.compare import Delta, non_inferiority
from assay.metrics import clustered_delta

if TYPE_CHECKING:
    from numpy.typing import NDArray

REPLICATIONS = 4_000
"""Replications per number of cases: a Monte Carlo s.e. of at most 0.8 points at 80%."""
SEED = 20_240_601
"""The default seed of a simulated plan."""
_CHUNK = 200  # replications drawn at once: memory stays small at many cases
MOST_CASES = 20_000
"""The most cases a simulated plan looks at (each replication runs compare's rule on
every case)."""


@dataclass(frozen=True)
class TrialsModel:
    """Two runs of ``trials`` trials per case: a case passes a baseline trial with its own
    probability π, beta-distributed with mean ``rate`` and intraclass correlation ``icc``;
    the candidate keeps π, except that with a true ``difference`` below 0 a share
    −difference / rate of the cases fails every trial, and above 0 a share
    difference / (1 − rate) passes every trial."""

    rate: float
    icc: float
    trials: int
    difference: float

    def __post_init__(self) -> None:
        if not 0 < self.rate < 1:
            raise ValueError(f"the baseline's rate must be between 0 and 1, got {self.rate:g}")
        if not -self.rate <= self.difference <= 1 - self.rate:
            raise ValueError(
                f"a true difference of {self.difference:g} at the baseline's rate "
                f"{self.rate:g} leaves the candidate's rate outside 0 … 1"
            )

    def one_trial_table(self) -> tuple[float, float]:
        """(p_broken, p_fixed) of one trial per case under this model."""
        flip = self.rate * (1 - self.rate) * (1 - self.icc)
        if self.difference < 0:
            share = -self.difference / self.rate
            return (1 - share) * flip + share * self.rate, (1 - share) * flip
        share = self.difference / (1 - self.rate)
        return (1 - share) * flip, (1 - share) * flip + share * (1 - self.rate)

    def draw(self, rng: Any, reps: int, cases: int) -> NDArray[Any]:
        """Per-case paired tables (both, fixed, broken, neither), shape (reps, cases, 4)."""
        import numpy as np  # deferred: numpy loads only when a plan is made

        shape = (reps, cases)
        if self.icc <= 0:
            pi = np.full(shape, self.rate)
        elif self.icc >= 1:
            pi = (rng.random(shape) < self.rate).astype(np.float64)
        else:
            spread = 1 / self.icc - 1
            pi = rng.beta(self.rate * spread, (1 - self.rate) * spread, size=shape)
        candidate = pi.copy()
        if self.difference < 0:
            candidate[rng.random(shape) < -self.difference / self.rate] = 0.0
        elif self.difference > 0:
            candidate[rng.random(shape) < self.difference / (1 - self.rate)] = 1.0
        base = rng.random((*shape, self.trials)) < pi[..., None]
        cand = rng.random((*shape, self.trials)) < candidate[..., None]
        return np.stack(
            [
                np.sum(base & cand, axis=-1),
                np.sum(~base & cand, axis=-1),
                np.sum(base & ~cand, axis=-1),
                np.sum(~base & ~cand, axis=-1),
            ],
            axis=-1,
        )


@dataclass(frozen=True)
class Simulated:
    """The share of replications in which compare's rule showed non-inferiority, and the
    Monte Carlo standard error of that share."""

    cases: int
    power: float
    se: float


def shows_noninferiority(
    tables: list[tuple[int, int, int, int]], margin: float, confidence: float
) -> bool:
    """Whether ``assay compare`` calls the candidate not worse by more than ``margin`` from
    these per-case paired tables over several trials."""
    value, ci, _ = clustered_delta(tables, confidence)
    delta = Delta(value=value, ci=ci, confidence=confidence, method="clustered")
    return non_inferiority(delta, margin).passed


def simulated_power(
    model: TrialsModel,
    cases: int,
    margin: float,
    confidence: float,
    *,
    replications: int = REPLICATIONS,
    seed: int = SEED,
) -> Simulated:
    """The power of compare's non-inferiority rule at ``cases`` cases under ``model``, from
    ``replications`` runs drawn with a generator seeded by (``seed``, ``cases``)."""
    import numpy as np  # deferred: numpy loads only when a plan is made

    rng = np.random.default_rng([seed, cases])
    shown = 0
    for start in range(0, replications, _CHUNK):
        drawn = model.draw(rng, min(_CHUNK, replications - start), cases)
        for rep in drawn.tolist():
            shown += shows_noninferiority([tuple(t) for t in rep], margin, confidence)
    power = shown / replications
    return Simulated(cases, power, math.sqrt(power * (1 - power) / replications))


def cases_for_simulated_noninferiority(
    model: TrialsModel,
    margin: float,
    confidence: float,
    power: float,
    guess: int,
    *,
    replications: int = REPLICATIONS,
    seed: int = SEED,
) -> Simulated:
    """The smallest number of cases whose simulated power reaches ``power``, by bisection on
    the cases (each number simulated once, with its own seed), from a bracket grown around
    ``guess``; its simulated power with it."""
    seen: dict[int, Simulated] = {}

    def at(n: int) -> Simulated:
        if n not in seen:
            seen[n] = simulated_power(
                model, n, margin, confidence, replications=replications, seed=seed
            )
        return seen[n]

    def good(n: int) -> bool:
        return at(n).power >= power

    step = max(2, guess // 8)
    lo, hi = max(1, guess - step), guess
    if good(hi):
        while lo > 1 and good(lo):
            step *= 2
            lo, hi = max(1, lo - step), lo
        if lo == 1 and good(1):
            return at(1)
    else:
        while not good(hi):
            if hi >= MOST_CASES:
                raise ValueError(
                    f"more than {MOST_CASES:,} cases would be needed (the simulated plan "
                    "looks no further)"
                )
            step *= 2
            lo, hi = hi, min(hi + step, MOST_CASES)
    while hi - lo > 1:  # good(hi), not good(lo)
        mid = (lo + hi) // 2
        if good(mid):
            hi = mid
        else:
            lo = mid
    return at(hi)
