"""The exact power of ``assay compare``'s non-inferiority verdict at one trial per case: its
rule (Newcombe's paired interval wholly above −margin, ``shows_not_worse``) decided at
every paired table of n cases, each weighted by its multinomial probability."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from assay.compare import shows_not_worse
from assay.metrics import paired_delta_limits, smallest_n

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Counts whose binomial probability lies below this, in any of the three steps of the
# multinomial, are left out: together less than 1e-10 of the probability.
_NEGLIGIBLE = 1e-12
_BLOCK = 1_000_000  # tables decided at once: memory stays small
MOST_TABLES = 50_000_000
"""The most paired tables one exact power decides (about 20,000 cases at a discordance of
0.2): beyond, the plan says it is out of reach rather than run for minutes."""
STEADY = 5
"""A plan's number of cases is the smallest from which this many in a row (it and the next
four) reach the power: the exact power is a saw-tooth in the number of cases."""


@dataclass(frozen=True)
class PairedCells:
    """The probabilities of a case's four paired outcomes at one trial: passed in both runs,
    fixed (only the candidate passed), broken (only the baseline passed), neither."""

    both: float
    fixed: float
    broken: float
    neither: float

    def __post_init__(self) -> None:
        cells = (self.both, self.fixed, self.broken, self.neither)
        if min(cells) < -1e-12 or abs(sum(cells) - 1) > 1e-9:
            raise ValueError(
                "the paired outcomes' probabilities must be at least 0 and add up to 1, got "
                + ", ".join(f"{c:.4g}" for c in cells)
            )

    @classmethod
    def of(cls, rate: float, broken: float, fixed: float) -> PairedCells:
        """The cells of a baseline passing a case with probability ``rate``, ``broken`` and
        ``fixed`` of the cases flipping each way."""
        both, neither = rate - broken, 1 - rate - fixed
        if both < -1e-12 or neither < -1e-12:
            raise ValueError(
                f"at the baseline's rate {rate:.3g}, {broken:.3g} of the cases broken and "
                f"{fixed:.3g} fixed leave no room for the cases that do not change "
                "(a smaller discordance, or another rate)"
            )
        return cls(max(0.0, both), fixed, broken, max(0.0, neither))


def noninferiority_power(n: int, cells: PairedCells, margin: float, confidence: float) -> float:
    """The probability that ``assay compare`` at one trial per case calls the candidate not
    worse by more than ``margin`` on n cases drawn with ``cells``: the sum of the
    multinomial probability of every paired table (both, fixed, broken, neither) at which
    the ``confidence`` paired interval lies wholly above −margin. Raises ValueError when n
    is beyond the exact enumeration (``MOST_TABLES``)."""
    if n < 1:
        raise ValueError(f"need at least one case, got {n}")
    if not 0 < margin < 1:
        raise ValueError(f"the margin must be between 0 and 1, got {margin}")
    return _power(n, cells, float(margin), float(confidence))


@cache
def _power(n: int, cells: PairedCells, margin: float, confidence: float) -> float:
    import numpy as np  # deferred: numpy loads only when a plan is made

    total = 0.0
    for both, fixed, broken, weight in _tables(n, cells):
        neither = n - both - fixed - broken
        low, _ = paired_delta_limits(both, fixed, broken, neither, confidence)
        total += float(np.sum(weight[shows_not_worse(low, margin)]))
    return min(1.0, max(0.0, total))


def _tables(n: int, cells: PairedCells) -> Iterator[tuple[NDArray[Any], ...]]:
    """Every paired table of n cases whose probability is not negligible, as (both, fixed,
    broken) counts and its multinomial probability, about ``_BLOCK`` tables at a time: D
    discordant cases ~ Bin(n, fixed + broken), B of them broken ~ Bin(D, share), A of the
    n − D others passing in both runs ~ Bin(n − D, share)."""
    import numpy as np  # deferred: numpy loads only when a plan is made

    discordant = cells.fixed + cells.broken
    ds, d_weights = _support(np.array([n]), discordant)
    bs, b_weights = _support(ds.values, _share(cells.broken, discordant))
    alls, a_weights = _support(n - ds.values, _share(cells.both, cells.both + cells.neither))
    sizes = bs.counts * alls.counts  # per d, every pair (b, a) of its two ranges
    if int(sizes.sum()) > MOST_TABLES:
        raise ValueError(
            f"{n:,} cases at one trial are beyond the exact power of compare's rule "
            f"(more than {MOST_TABLES:,} paired tables to decide)"
        )
    ends = np.cumsum(sizes)
    first = 0
    while first < sizes.size:
        last = max(first + 1, int(np.searchsorted(ends, ends[first] - sizes[first] + _BLOCK)))
        part = np.arange(first, last)
        which = np.repeat(part, sizes[part])
        within = np.arange(which.size) - np.repeat(
            np.cumsum(sizes[part]) - sizes[part], sizes[part]
        )
        b_at = bs.starts[which] + within // alls.counts[which]
        a_at = alls.starts[which] + within % alls.counts[which]
        weight = d_weights[which] * b_weights[b_at] * a_weights[a_at]
        # tables less likely than 1e-14 are left out: together less than 1e-6 at the most
        # tables a plan decides, far below any figure it prints
        kept = weight > 1e-14
        broken = bs.values[b_at][kept]
        yield alls.values[a_at][kept], ds.values[which][kept] - broken, broken, weight[kept]
        first = last


def cases_for_noninferiority(
    cells: PairedCells, margin: float, confidence: float, power: float, guess: int
) -> int:
    """The smallest number of cases whose exact power by compare's rule reaches ``power``
    and stays there for the ``STEADY`` − 1 numbers after it: the crossing found by
    bisection from ``guess``, the ``2 × STEADY`` numbers below it looked at one by one
    (``smallest_n``), then onward past any number that falls short."""

    def reaches(n: int) -> bool:
        return noninferiority_power(n, cells, margin, confidence) >= power

    n = smallest_n(reaches, guess=max(1, guess), window=2 * STEADY)
    while True:
        short = next((n + i for i in range(STEADY) if not reaches(n + i)), None)
        if short is None:
            return n
        n = short + 1


def normal_guess(cells: PairedCells, margin: float, confidence: float, power: float) -> int:
    """The normal approximation's number of cases: a first guess for the search."""
    from scipy.special import ndtri  # deferred: scipy loads only when a plan is made

    distance = margin + cells.fixed - cells.broken
    if distance <= 0:
        raise ValueError(
            "the expected difference is already beyond the margin: non-inferiority cannot be shown"
        )
    spread = cells.fixed + cells.broken - (cells.fixed - cells.broken) ** 2
    z = float(ndtri(1 - (1 - confidence) / 2)) + float(ndtri(power))
    return max(1, math.ceil(z * z * max(spread, 1e-4) / distance**2))


def worst_rate(broken: float, fixed: float, cases: int, margin: float, confidence: float) -> float:
    """Of the baseline rates 0.05, 0.10 … 0.95 that leave room for ``broken`` and ``fixed``,
    the one at which compare's rule has the least exact power at ``cases`` cases (0.5 when
    none does)."""
    powers = {}
    for rate in (k / 20 for k in range(1, 20)):
        if rate >= broken and 1 - rate >= fixed:
            cells = PairedCells.of(rate, broken, fixed)
            powers[rate] = noninferiority_power(cases, cells, margin, confidence)
    return min(powers, key=lambda r: (powers[r], abs(r - 0.5))) if powers else 0.5


def _share(part: float, whole: float) -> float:
    return 0.5 if whole <= 0 else min(1.0, max(0.0, part / whole))


@dataclass(frozen=True)
class _Ranges:
    """The likely values of Bin(nᵢ, p) for each nᵢ, laid end to end: ``values``, with the
    range of nᵢ starting at ``starts[i]`` and holding ``counts[i]`` values."""

    values: NDArray[Any]
    starts: NDArray[Any]
    counts: NDArray[Any]


def _support(ns: NDArray[Any], p: float) -> tuple[_Ranges, NDArray[Any]]:
    """The values of Bin(nᵢ, p), for each nᵢ, outside whose range the probability is
    negligible, and their probabilities."""
    import numpy as np  # deferred: numpy loads only when a plan is made
    from scipy.stats import binom  # deferred: scipy loads only when a plan is made

    if 0 < p < 1:
        low = np.maximum(0, binom.ppf(_NEGLIGIBLE, ns, p).astype(np.int64) - 1)
        high = np.minimum(ns, binom.isf(_NEGLIGIBLE, ns, p).astype(np.int64) + 1)
    else:
        low = high = np.zeros_like(ns) if p <= 0 else ns.copy()
    counts = high - low + 1
    starts = np.cumsum(counts) - counts
    owner = np.repeat(np.arange(ns.size), counts)
    values = low[owner] + np.arange(int(counts.sum())) - starts[owner]
    return _Ranges(values, starts, counts), binom.pmf(values, ns[owner], p)
