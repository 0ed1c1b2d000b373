"""Paired statistics for two runs over the same cases: exact McNemar and the paired delta.

Both take the four cells of the paired 2×2 table of task success:
``both`` (passed in both runs), ``fixed`` (failed in the baseline, passed in the candidate),
``broken`` (passed in the baseline, failed in the candidate) and ``neither``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.metrics._cluster import effective_interval
from assay.metrics._floats import Floats
from assay.metrics._intervals import score_limits_array

if TYPE_CHECKING:
    from numpy.typing import NDArray


def mcnemar_exact(fixed: int, broken: int) -> float:
    """The two-sided exact McNemar p-value: a binomial test on the discordant pairs.

    p = min(1, 2·P(X ≤ min(fixed, broken))) with X ~ Bin(fixed + broken, 1/2); 1.0 when
    there are no discordant pairs. Computed in exact integer arithmetic (the float is the
    correctly rounded value of the exact rational).
    Source: McNemar (1947), Psychometrika 12:153; the exact conditional form as given by
    Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91, whose worked example
    (discordant 1 and 7) gives p = 9/128.

    >>> mcnemar_exact(7, 1)
    0.0703125
    """
    if fixed < 0 or broken < 0:
        raise ValueError(f"discordant counts must be >= 0, got {fixed} and {broken}")
    n = fixed + broken
    low = min(fixed, broken)
    if abs(fixed - broken) <= 1:
        return 1.0  # P(X <= low) >= 1/2: the doubled tail reaches 1 (also when n = 0)
    if _tail_underflows(n, low):
        return 0.0
    if n > _BOUNDED_FROM:
        bounded = _bounded_p(n, low)
        if bounded is not None:
            return bounded
    # p = 2·T / (Q·2^n) exactly, and int / int is correctly rounded, as float(Fraction) is.
    total, common = _binomial_sum(n, low)
    numerator, denominator = total, common << (n - 1)
    return 1.0 if numerator >= denominator else numerator / denominator


# Above this many discordant pairs the p-value is first bounded (``_bounded_p``): the
# exact sum's big integers take seconds at hundreds of thousands of pairs.
_BOUNDED_FROM = 2_000
_MANTISSA = 340  # bits each term keeps, at least


def _bounded_p(n: int, low: int) -> float | None:
    """min(1, 2·P(X ≤ low)), X ~ Bin(n, 1/2), correctly rounded, when bounds on it round
    to the same float (else None, and it is computed exactly).

    The terms C(n, i), i = 0 … low, are made by their ratios (n - i) / (i + 1) as
    integers of at least ``_MANTISSA`` bits times a power of two, each rounded down, and
    summed alike: the sum is below the true one by less than a relative 2^-300 plus a
    unit per term, so it and that much more bound the tail from both sides.
    """
    term, total, scale = 1 << _MANTISSA, 1 << _MANTISSA, -_MANTISSA
    keep = _MANTISSA + 64
    for i in range(low):
        term = term * (n - i) // (i + 1)
        total += term
        excess = term.bit_length() - keep
        if excess > 0:
            term >>= excess
            total >>= excess
            scale += excess
    high = total + (total >> 300) + low + 2
    shift = n - 1 - scale  # p = 2 · total · 2^scale / 2^n = total / 2^shift
    if shift < 0:
        return None
    bounds = [t / (1 << shift) for t in (total, high)]  # int / int: correctly rounded
    if bounds[0] != bounds[1]:
        return None
    return min(1.0, bounds[0])


def _binomial_sum(n: int, low: int) -> tuple[int, int]:
    """(T, Q) with C(n, 0) + C(n, 1) + … + C(n, low) = T / Q, exactly.

    By binary splitting of the terms' ratios C(n, i+1) / C(n, i) = (n - i) / (i + 1):
    the big products are formed by halves, so at 420,000 discordant pairs it takes about
    3 s where adding the terms one by one took about 18 s.
    """

    def split(a: int, b: int, last: bool) -> tuple[int, int, int]:
        # Σ_{k=a}^{b-1} Π_{j=a}^{k-1} (n-j)/(j+1) = t / q, with p = Π_{j=a}^{b-1} (n-j)
        # (not formed for the last block, where nothing follows it).
        if b - a <= 32:
            p, q, t = 1, 1, 0
            for j in range(a, b):  # add the term p/q, then take in the ratio at j
                t, q, p = (t + p) * (j + 1), q * (j + 1), p * (n - j)
            return p, q, t
        m = (a + b) // 2
        p1, q1, t1 = split(a, m, False)
        p2, q2, t2 = split(m, b, last)
        return (0 if last else p1 * p2), q1 * q2, t1 * q2 + p1 * t2

    _, q, t = split(0, low + 1, True)
    return t, q


def _tail_underflows(n: int, low: int) -> bool:
    """True when 2·P(X <= low), X ~ Bin(n, 1/2), is certainly below half the smallest
    float, so that it rounds to 0.0: the Chernoff bound P(X <= low) <= exp(-n·D(low/n ‖
    1/2)) with a wide margin for rounding in the bound itself."""
    a = low / n
    divergence = (a * math.log(2 * a) if a else 0.0) + (1 - a) * math.log(2 * (1 - a))
    return math.log(2) - n * divergence < -1100 * math.log(2)


def _phi(both: Any, fixed: Any, broken: Any, neither: Any, xp: Any = Floats) -> Any:
    """Newcombe's estimate of the correlation of the paired table, with his adjustment:
    a positive numerator AD − BC is reduced by n/2 (and floored at 0)."""
    n = both + fixed + broken + neither
    margins = (both + fixed) * (broken + neither) * (both + broken) * (fixed + neither)
    numerator = both * neither - fixed * broken
    numerator = xp.where(numerator > 0, xp.maximum(0.0, numerator - n / 2), numerator)
    # the empty margin's 0/0 is never taken: it reads 0 (1 under the root, then discarded)
    return xp.where(margins == 0, 0.0, numerator / xp.sqrt(xp.where(margins == 0, 1, margins)))


def _newcombe(
    both: Any,
    fixed: Any,
    broken: Any,
    neither: Any,
    cand: tuple[Any, Any],
    base: tuple[Any, Any],
    xp: Any = Floats,
) -> tuple[Any, Any]:
    """Newcombe's method 10 from the table and the Wilson limits of each run's rate."""
    n = both + fixed + broken + neither
    p_cand, p_base = (both + fixed) / n, (both + broken) / n
    (l_cand, u_cand), (l_base, u_base) = cand, base
    phi = _phi(both, fixed, broken, neither, xp)
    delta = p_cand - p_base
    down = xp.sqrt(
        xp.maximum(
            0.0,
            (p_cand - l_cand) ** 2
            - 2 * phi * (p_cand - l_cand) * (u_base - p_base)
            + (u_base - p_base) ** 2,
        )
    )
    up = xp.sqrt(
        xp.maximum(
            0.0,
            (u_cand - p_cand) ** 2
            - 2 * phi * (u_cand - p_cand) * (p_base - l_base)
            + (p_base - l_base) ** 2,
        )
    )
    return xp.maximum(-1.0, delta - down), xp.minimum(1.0, delta + up)


def paired_delta_interval(
    both: float, fixed: float, broken: float, neither: float, confidence: float = 0.95
) -> tuple[float, float]:
    """Interval for p(candidate) − p(baseline) from paired outcomes.

    Newcombe's hybrid score interval for paired proportions without continuity correction
    (Newcombe 1998, Stat Med 17:2635–2650, method 10): Wilson score limits for each run's
    rate, combined with the correlation φ of the paired table (adjusted as Newcombe
    specifies: a positive AD − BC is reduced by n/2). Checked against the
    worked example of Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency
    Tables" (2017), ch. 8 (Cavo et al. table 59/6/16/80: −0.0621, [−0.1186, −0.0046]).
    Counts may be non-integer (a design-effect-adjusted table, see ``clustered_delta``).
    """
    n = both + fixed + broken + neither
    if min(both, fixed, broken, neither) < 0 or n == 0:
        raise ValueError(f"need a non-empty table of counts >= 0, got {(both, fixed, broken)}")
    cand = effective_interval(both + fixed, n, confidence, "wilson")
    base = effective_interval(both + broken, n, confidence, "wilson")
    low, high = _newcombe(both, fixed, broken, neither, cand, base)
    return float(low), float(high)


def paired_delta_limits(
    both: NDArray[Any],
    fixed: NDArray[Any],
    broken: NDArray[Any],
    neither: NDArray[Any],
    confidence: float = 0.95,
) -> tuple[NDArray[Any], NDArray[Any]]:
    """``paired_delta_interval`` at many tables at once: arrays of integer counts, every
    table of the same number of pairs; the lower and the upper limits, as arrays."""
    import numpy as np  # deferred: numpy loads only where many tables are decided

    counts = [np.asarray(c, dtype=np.int64) for c in (both, fixed, broken, neither)]
    totals = counts[0] + counts[1] + counts[2] + counts[3]
    if totals.size == 0:
        empty = np.zeros(totals.shape)
        return empty, empty
    n = int(totals.flat[0])
    if n < 1 or np.any(totals != n) or min(int(c.min()) for c in counts) < 0:
        raise ValueError("need tables of counts >= 0, every one of the same number of pairs")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    cand = score_limits_array(counts[0] + counts[1], n, confidence)
    base = score_limits_array(counts[0] + counts[2], n, confidence)
    low, high = _newcombe(counts[0], counts[1], counts[2], counts[3], cand, base, np)
    return low, high


def clustered_delta(
    tables: Sequence[tuple[int, int, int, int]], confidence: float = 0.95
) -> tuple[float, tuple[float, float], float]:
    """Delta, interval and design effect for paired outcomes of several trials per case.

    ``tables[i]`` is case i's paired table (both, fixed, broken, neither) over its trials.
    The pooled table's counts are divided by the design effect of the paired difference
    (cluster-robust over naive variance, at least 1), then Newcombe's method 10 is applied:
    the Rao–Scott adjustment for clustered binary data (Rao & Scott 1992, "A simple method
    for the analysis of clustered binary data", Biometrics 48:577–585). With no discordant
    pair at all the design effect is unknown and taken as the number of trials per case
    (each case counts once: the conservative choice).
    """
    cells = [sum(t[j] for t in tables) for j in range(4)]
    n = sum(cells)
    if n == 0:
        raise ValueError("no paired outcomes")
    delta = (cells[1] - cells[2]) / n
    naive = (cells[1] + cells[2]) / n - delta**2  # per-pair variance of the difference
    robust = sum((t[1] - t[2] - delta * sum(t)) ** 2 for t in tables) / n**2
    deff = n / len(tables) if naive <= 0 else max(1.0, robust / (naive / n))
    both, fixed, broken, neither = (c / deff for c in cells)
    return delta, paired_delta_interval(both, fixed, broken, neither, confidence), deff


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    With m p-values sorted ascending p(1) ≤ … ≤ p(m), the adjusted value of p(i) is
    max over j ≤ i of min(1, (m − j + 1)·p(j)); rejecting where the adjusted value is at
    most α controls the family-wise error rate at α for any dependence between the tests.
    Source: Holm (1979), "A simple sequentially rejective multiple test procedure",
    Scandinavian Journal of Statistics 6:65–70.

    >>> holm_adjust([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
