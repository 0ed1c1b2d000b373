"""How many cases a decision needs: interval widths, the power of the paired tests assay
reads, and the sample sizes and detectable effects that follow from them.

Every figure here is computed exactly for the method assay reports with, not from a normal
approximation:

- the half-width of a rate's interval is that of the interval itself (Clopper–Pearson or
  Wilson, ``_intervals``) at every outcome x of n cases: ``max(x/n − lower, upper − x/n)``,
  the larger of its two sides, so that "±w" holds on both sides of an asymmetric interval;
- the power of the exact conditional McNemar test (``_paired.mcnemar_exact``, the test of
  ``assay compare``) is the sum over the number of discordant pairs d of its binomial
  probability times the probability that the exact test rejects given d;
- the power of the non-inferiority verdict is ``assay compare``'s own rule, enumerated
  over every paired table (``planning``: the rule lives in ``compare``).

A paired table is described per case by ``p_broken`` (passed in the baseline, fails in the
candidate) and ``p_fixed`` (the reverse).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from assay._fast.special_functions import special
from assay.metrics._cluster import df_factor
from assay.metrics._intervals import score_limits_array
from assay.metrics._paired import mcnemar_exact
from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Outcomes whose probability is below this are left out of a sum (their total is at most
# this times the number of outcomes): far below any figure a plan prints.
_NEGLIGIBLE = 1e-12
MAX_CASES = 10_000_000
"""The largest number of cases a search looks at."""


def half_widths(n: int, interval: IntervalSetting = DEFAULT_INTERVAL) -> NDArray[Any]:
    """The half-width ``max(x/n − lower, upper − x/n)`` of the interval at every outcome
    x = 0 … n of n cases, by the interval's own method and level."""
    import numpy as np  # deferred: numpy loads only when a plan is made

    if n < 1:
        raise ValueError(f"need at least one case, got {n}")
    x = np.arange(n + 1, dtype=np.float64)
    lower, upper = _limits(x, float(n), interval)
    estimate = x / n
    widths: NDArray[Any] = np.maximum(estimate - lower, upper - estimate)
    return widths


def _limits(
    x: NDArray[Any], n: float, interval: IntervalSetting
) -> tuple[NDArray[Any], NDArray[Any]]:
    """The interval's limits at x successes (an array, possibly non-integer) of n."""
    import numpy as np  # deferred: numpy loads only when a plan is made

    if interval.method == "wilson":
        return score_limits_array(x, n, interval.confidence)
    betaincinv = special().betaincinv
    alpha = 1 - interval.confidence
    # the limit at x = 0 (lower) and x = n (upper) is exact: keep the ufunc's arguments valid
    low_x, high_x = np.maximum(x, 0.5), np.minimum(x, n - 0.5)
    lower = np.where(x <= 0, 0.0, betaincinv(low_x, n - low_x + 1, alpha / 2))
    upper = np.where(x >= n, 1.0, betaincinv(high_x + 1, n - high_x, 1 - alpha / 2))
    return lower, upper


def rate_half_width(
    n: int,
    expected: float | None = None,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    assurance: float = 0.95,
) -> float:
    """The half-width a rate measured on n cases is reported with.

    Without ``expected``: the largest over every outcome x = 0 … n, whatever the true rate
    (the worst case). With an expected rate p: the smallest h such that the half-width is at
    most h with probability at least ``assurance`` when X ~ Bin(n, p).
    """
    import numpy as np  # deferred: numpy loads only when a plan is made

    widths = half_widths(n, interval)
    if expected is None:
        return float(widths.max())
    _check_probability(expected, "expected rate")
    if not 0 < assurance < 1:
        raise ValueError(f"assurance must be between 0 and 1, got {assurance}")
    weights = _binomial_pmf(np.arange(n + 1), n, expected)
    order = np.argsort(widths, kind="stable")
    reached = np.cumsum(weights[order])
    # the first width at which the probability of doing at least as well reaches assurance
    at = int(np.searchsorted(reached, assurance - 1e-12))
    return float(widths[order[min(at, n)]])


def cases_for_half_width(
    width: float,
    expected: float | None = None,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    assurance: float = 0.95,
) -> int:
    """The smallest number of cases whose rate is reported within ±``width``
    (``rate_half_width`` at most ``width``)."""
    if not 0 < width < 0.5:
        raise ValueError(f"the half-width must be between 0 and 0.5, got {width}")

    def good(n: int) -> bool:
        return rate_half_width(n, expected, interval=interval, assurance=assurance) <= width

    # the normal approximation's n as the first guess; the width is close to monotone in n
    z = float(special().ndtri(1 - (1 - interval.confidence) / 2))
    p = 0.5 if expected is None else min(max(expected, 0.01), 0.99)
    return smallest_n(good, guess=math.ceil(z * z * p * (1 - p) / width**2), window=10)


def smallest_n(good: Callable[[int], bool], guess: int = 1, window: int | None = None) -> int:
    """The smallest n ≥ 1 for which ``good(n)`` holds, for a ``good`` that holds from some n
    on except for a saw-tooth near the crossing (an exact test's power, an exact interval's
    width): a bracket grown from ``guess`` by factors of 2, bisection to a crossing, then case
    by case over ``window`` values below it (default: a twentieth of n, at least 10 and at
    most 50), so that an n just below the crossing that already reaches the goal is found
    too."""
    guess = max(1, min(guess, MAX_CASES))
    if good(guess):
        lo, hi = guess // 2, guess
        while lo >= 1 and good(lo):
            lo, hi = lo // 2, lo
    else:
        lo, hi = guess, 2 * guess
        while not good(hi):
            if hi >= MAX_CASES:
                raise ValueError(f"more than {MAX_CASES:,} cases would be needed")
            lo, hi = hi, min(2 * hi, MAX_CASES)
    while hi - lo > 1:  # good(hi), and not good(lo) or lo = 0
        mid = (lo + hi) // 2
        if good(mid):
            hi = mid
        else:
            lo = mid
    span = window if window is not None else min(50, max(10, hi // 20))
    below = max(1, hi - span)
    return next((n for n in range(below, hi) if good(n)), hi)


# --- the exact McNemar test ----------------------------------------------------------------


@cache
def _critical(d: int, alpha: float) -> int:
    """The smallest number of broken pairs b among d discordant pairs at which the two-sided
    exact McNemar test rejects at ``alpha`` with more broken than fixed (d + 1: never)."""
    from scipy.stats import binom  # deferred: scipy loads only when a plan is made

    if d == 0:
        return 1
    # 2·P(X ≥ b) ≤ α with X ~ Bin(d, ½); scipy's isf gives the smallest k with P(X > k) ≤ α/2
    guess = int(binom.isf(alpha / 2, d, 0.5)) + 1
    guess = max(guess, d // 2 + 1)
    # the exact test itself decides at the boundary (scipy's tail is a float)
    while guess - 1 > d / 2 and mcnemar_exact(d - guess + 1, guess - 1) <= alpha:
        guess -= 1
    while guess <= d and mcnemar_exact(d - guess, guess) > alpha:
        guess += 1
    return guess


def mcnemar_critical(d: int, alpha: float) -> int:
    """The smallest number of broken pairs among ``d`` discordant ones at which the exact
    McNemar test (two-sided, level ``alpha``) rejects in the direction of a drop; d + 1 when
    it never does."""
    if d < 0:
        raise ValueError(f"need d >= 0 discordant pairs, got {d}")
    _check_level(alpha)
    return _critical(d, float(alpha))


def mcnemar_power(n: int, p_broken: float, p_fixed: float, alpha: float = 0.05) -> float:
    """The probability that the exact McNemar test on n pairs rejects at two-sided level
    ``alpha`` with more broken than fixed pairs: Σ_d P(D = d) · P(B ≥ c_d | d), with
    D ~ Bin(n, p_broken + p_fixed), B | d ~ Bin(d, p_broken / (p_broken + p_fixed)) and c_d
    the exact test's critical value (``mcnemar_critical``)."""
    import numpy as np  # deferred: numpy loads only when a plan is made
    from scipy.stats import binom  # deferred: scipy loads only when a plan is made

    _check_table(n, p_broken, p_fixed)
    _check_level(alpha)
    discordance = p_broken + p_fixed
    if discordance == 0:
        return 0.0
    share = p_broken / discordance
    ds = _likely(n, discordance)
    critical = np.array([_critical(int(d), float(alpha)) for d in ds])
    rejecting = binom.sf(critical - 1, ds, share)
    return float(np.clip(np.sum(_binomial_pmf(ds, n, discordance) * rejecting), 0.0, 1.0))


def cases_for_drop(
    p_broken: float, p_fixed: float, *, alpha: float = 0.05, power: float = 0.8
) -> int:
    """The smallest number of paired cases at which the exact McNemar test detects the
    drop ``p_broken − p_fixed`` with at least ``power``."""
    _check_power(power)
    if p_broken <= p_fixed:
        raise ValueError("a drop needs more broken than fixed cases")
    drop, flips = p_broken - p_fixed, p_broken + p_fixed
    z_alpha, z_power = _z(1 - alpha / 2), _z(power)
    # Connor's (1987) normal approximation as the first guess; the search decides
    guess = ((z_alpha * math.sqrt(flips) + z_power * math.sqrt(flips - drop**2)) / drop) ** 2
    return smallest_n(
        lambda n: mcnemar_power(n, p_broken, p_fixed, alpha) >= power,
        guess=math.ceil(guess),
    )


def trials_drop_table(rate: float, icc: float, trials: int, drop: float) -> tuple[float, float]:
    """(p_broken, p_fixed) per case of the sign test over cases that ``assay compare`` runs
    on two runs of ``trials`` trials each: a case is broken when fewer of its candidate
    trials pass than of its baseline trials, fixed when more.

    The model: a case's pass probability π follows a beta distribution of mean ``rate``
    whose intraclass correlation is ``icc`` (the beta-binomial: ρ = 1/(a + b + 1); ρ = 0,
    every case at the rate; ρ = 1, every case always passing or always failing); both runs'
    trials of a case are independent draws at its π. The candidate breaks a share
    drop / rate of the cases, chosen regardless of π: each fails every trial; the others
    keep their π. Task success per trial then drops by ``drop``. Computed exactly from the
    joint beta-binomial distribution of the two runs' pass counts."""
    import numpy as np  # deferred: numpy loads only when a plan is made
    from scipy.special import betaln, comb  # deferred: scipy loads only when a plan is made

    _check_probability(rate, "rate")
    _check_probability(icc, "intraclass correlation")
    if trials < 1:
        raise ValueError(f"need at least one trial, got {trials}")
    if not 0 < drop <= rate:
        raise ValueError(
            f"a drop of {drop:g} needs a rate above it (broken cases fail every trial), "
            f"got rate {rate:g}"
        )
    broken_share = drop / rate
    k = np.arange(trials + 1)
    if icc <= 0:
        counts = comb(trials, k) * rate**k * (1 - rate) ** (trials - k)
        joint = np.outer(counts, counts)
        none_pass = float(counts[0])
    elif icc >= 1:
        joint = np.zeros((trials + 1, trials + 1))
        joint[0, 0], joint[trials, trials] = 1 - rate, rate
        none_pass = 1 - rate
    else:
        a, b = rate * (1 / icc - 1), (1 - rate) * (1 / icc - 1)
        x, y = np.meshgrid(k, k, indexing="ij")
        both = x + y
        joint = (
            comb(trials, x)
            * comb(trials, y)
            * np.exp(betaln(a + both, b + 2 * trials - both) - betaln(a, b))
        )
        none_pass = math.exp(betaln(a, b + trials) - betaln(a, b))
    fewer = float(np.sum(np.tril(joint, -1)))  # candidate count y below baseline count x
    more = float(np.sum(np.triu(joint, 1)))
    p_broken = (1 - broken_share) * fewer + broken_share * (1 - none_pass)
    return p_broken, (1 - broken_share) * more


# --- what a number of cases can detect --------------------------------------------------------


def smallest_effect(good: Callable[[float], bool], low: float, high: float) -> float | None:
    """The smallest effect in (low, high] for which ``good`` holds, to 1e-4 (by bisection:
    power grows with the effect); None when even ``high`` falls short."""
    if not good(high):
        return None
    while high - low > 1e-4:
        mid = (low + high) / 2
        if good(mid):
            high = mid
        else:
            low = mid
    return high


# --- trials: the design effect ------------------------------------------------------------------


def design_effect(successes: Sequence[float], sizes: Sequence[float]) -> float | None:
    """The design effect of trials clustered by case, as the clustered interval measures
    it: units · v̂ / (p̂(1 − p̂)), v̂ = N/(N − 1) · Σ (yᵢ − p̂ mᵢ)² / (Σ mᵢ)² (``_cluster``),
    kept between 1 and the largest number of trials of a case. None when it cannot be
    measured (fewer than two cases, or every unit passed or every unit failed)."""
    pairs = [(y, m) for y, m in zip(successes, sizes, strict=True) if m > 0]
    if len(pairs) < 2:
        return None
    units = sum(m for _, m in pairs)
    p = sum(y for y, _ in pairs) / units
    if p <= 0 or p >= 1:
        return None
    spread = sum((y - p * m) ** 2 for y, m in pairs) / units**2
    variance = spread * len(pairs) / (len(pairs) - 1)
    largest = max(m for _, m in pairs)
    return min(float(largest), max(1.0, units * variance / (p * (1 - p))))


def intraclass(deff: float, trials: float) -> float:
    """The correlation ρ of two trials of one case implied by a design effect measured at
    ``trials`` trials per case (Kish: deff = 1 + (K − 1)ρ), between 0 and 1."""
    if trials <= 1:
        raise ValueError("a design effect says nothing about correlation with one trial")
    return min(1.0, max(0.0, (deff - 1) / (trials - 1)))


def clustered_observations(cases: int, trials: int, icc: float, confidence: float) -> float:
    """The observations ``cases`` cases at ``trials`` trials each (correlation ``icc``)
    carry as the clustered interval counts them: K·N / (1 + (K − 1)ρ), times Korn &
    Graubard's degrees-of-freedom factor (t_{KN−1} / t_{N−1})², never fewer than N nor
    more than K·N."""
    if cases < 1 or trials < 1:
        raise ValueError(f"need at least one case and one trial, got {cases} and {trials}")
    if trials == 1:
        return float(cases)
    units = float(trials * cases)
    factor = df_factor(units, float(cases - 1), confidence) if cases > 1 else 0.0
    return min(units, max(float(cases), units / (1 + (trials - 1) * icc) * factor))


def cases_with_trials(effective: int, trials: int, icc: float, confidence: float) -> int:
    """The smallest number of cases that, at ``trials`` trials each with correlation
    ``icc``, carry at least ``effective`` observations (``clustered_observations``)."""
    if trials < 1:
        raise ValueError(f"need at least one trial, got {trials}")
    if trials == 1:
        return effective
    return smallest_n(
        lambda n: clustered_observations(n, trials, icc, confidence) >= effective,
        guess=max(1, effective // trials),
    )


def trial_discordance(passes: Sequence[int], trials: Sequence[int]) -> float | None:
    """The share of pairs of trials of one case that disagree (one passed, one not),
    averaged over the cases with at least two trials: how often a case's outcome flips
    between two runs of the same system. None when no case has two trials."""
    shares = [
        2 * c * (k - c) / (k * (k - 1)) for c, k in zip(passes, trials, strict=True) if k >= 2
    ]
    return sum(shares) / len(shares) if shares else None


# --- helpers -----------------------------------------------------------------------------------


def _likely(n: int, p: float) -> NDArray[Any]:
    """The values of Bin(n, p) outside whose range the probability is negligible."""
    import numpy as np  # deferred: numpy loads only when a plan is made
    from scipy.stats import binom  # deferred: scipy loads only when a plan is made

    low = int(binom.ppf(_NEGLIGIBLE, n, p))
    high = int(binom.isf(_NEGLIGIBLE, n, p))
    return np.arange(max(0, low - 1), min(n, high + 1) + 1)


def _z(q: float) -> float:
    return float(special().ndtri(q))


def _binomial_pmf(k: Any, n: int, p: float) -> Any:
    from scipy.stats import binom  # deferred: scipy loads only when a plan is made

    return binom.pmf(k, n, p)


def _check_probability(p: float, what: str) -> None:
    if not (isinstance(p, int | float) and 0 <= p <= 1) or math.isnan(p):
        raise ValueError(f"the {what} must be between 0 and 1, got {p!r}")


def _check_level(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"the level alpha must be between 0 and 1, got {alpha}")


def _check_power(power: float) -> None:
    if not 0 < power < 1:
        raise ValueError(f"the power must be between 0 and 1, got {power}")


def _check_table(n: int, p_broken: float, p_fixed: float) -> None:
    if n < 1:
        raise ValueError(f"need at least one pair, got {n}")
    _check_probability(p_broken, "broken share")
    _check_probability(p_fixed, "fixed share")
    if p_broken + p_fixed > 1 + 1e-12:
        raise ValueError("the broken and fixed shares add up to more than 1")
