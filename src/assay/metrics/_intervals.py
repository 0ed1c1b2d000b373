"""Binomial confidence intervals for a proportion x/n.

Clopper–Pearson ("exact") is the default: it inverts two one-sided binomial tests, so its
coverage is never below the nominal level (Clopper & Pearson 1934; NIST/SEMATECH
e-Handbook of Statistical Methods §7.2.4.2). Wilson's score interval is narrower on average
and offered as an option (Wilson 1927; Brown, Cai & DasGupta 2001, Statistical Science 16(2)).
"""

from __future__ import annotations

import base64
import struct
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from assay._fast.special_functions import special
from assay.metrics import _beta_table
from assay.metrics._floats import Floats

if TYPE_CHECKING:
    from numpy.typing import NDArray

IntervalMethod = Literal["clopper-pearson", "wilson"]
METHODS: tuple[IntervalMethod, ...] = ("clopper-pearson", "wilson")


def _check(x: int, n: int, confidence: float) -> None:
    if n <= 0 or not 0 <= x <= n:
        raise ValueError(f"need 0 <= x <= n and n > 0, got x={x}, n={n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


def beta_limits(x: float, n: float, confidence: float) -> tuple[float, float]:
    """Clopper–Pearson's beta-quantile limits; x and n may be non-integer (Korn & Graubard's
    effective counts). Arguments are not checked.

    The 95% limits of whole counts up to ``_beta_table.LARGEST_N`` are scipy's own, read from
    a table, so that a small report does not load numpy and scipy."""
    if (
        confidence == _beta_table.CONFIDENCE
        and type(x) is int
        and type(n) is int
        and 0 <= x <= n <= _beta_table.LARGEST_N
        and n > 0
    ):
        table = _tabled()
        at = n * (n - 1)  # where n's limits start: n-1 lower and upper pairs before
        lower = 0.0 if x == 0 else table[at + x - 1]
        upper = 1.0 if x == n else table[at + n + x]
        return lower, upper
    betaincinv = special().betaincinv

    alpha = 1.0 - confidence
    lower = 0.0 if x <= 0 else float(betaincinv(x, n - x + 1, alpha / 2))
    upper = 1.0 if x >= n else float(betaincinv(x + 1, n - x, 1 - alpha / 2))
    return lower, upper


@cache
def _tabled() -> tuple[float, ...]:
    data = base64.b64decode("".join(_beta_table.LIMITS))
    return struct.unpack(f"<{len(data) // 8}d", data)


def _normal_quantile(confidence: float) -> float:
    """The two-sided normal quantile at ``confidence``; at 95% scipy's own, read from
    ``_beta_table``."""
    if confidence == _beta_table.CONFIDENCE:
        return _beta_table.NORMAL_QUANTILE  # scipy's own ndtri at this level
    return float(special().ndtri(1 - (1 - confidence) / 2))


def _score(x: Any, n: float, z: float, xp: Any) -> tuple[Any, Any]:
    """Wilson's score limits at x successes of n, with ``xp`` numpy or ``Floats``."""
    p = x / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * xp.sqrt(xp.maximum(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    # At x = 0 and x = n the limits are exactly 0 and 1 (rounding would leave 5.6e-17 and
    # 0.9999999999999999: an interval that misses its own estimate).
    lower = xp.where(x <= 0, 0.0, xp.maximum(0.0, xp.minimum(p, centre - half)))
    upper = xp.where(x >= n, 1.0, xp.minimum(1.0, xp.maximum(p, centre + half)))
    return lower, upper


def score_limits(x: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson's score limits, clipped to [0, 1]; x and n may be non-integer. Arguments are
    not checked."""
    lower, upper = _score(x, n, _normal_quantile(confidence), Floats)
    return lower, upper


def score_limits_array(
    x: NDArray[Any], n: float, confidence: float
) -> tuple[NDArray[Any], NDArray[Any]]:
    """``score_limits`` at every element of x (counts of n, possibly non-integer), as two
    arrays equal to the scalar limits. Arguments are not checked."""
    import numpy as np  # deferred: numpy loads only where many rates are computed at once

    lower, upper = _score(np.asarray(x, dtype=np.float64), n, _normal_quantile(confidence), np)
    return lower, upper


def clopper_pearson(x: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact two-sided interval: lower = B⁻¹(α/2; x, n−x+1), upper = B⁻¹(1−α/2; x+1, n−x).

    The lower limit is 0 when x = 0 and the upper limit is 1 when x = n.

    >>> [round(v, 8) for v in clopper_pearson(4, 20, 0.90)]  # NIST e-Handbook example
    [0.07135388, 0.40102812]
    """
    _check(x, n, confidence)
    return beta_limits(x, n, confidence)


def wilson(x: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval, clipped to [0, 1].

    Source: Wilson (1927), JASA 22:209; as printed in Newcombe (1998), Stat Med 17:857,
    Table I, method 3 (81/263 gives 0.2553 to 0.3662).
    """
    _check(x, n, confidence)
    return score_limits(x, n, confidence)


def interval(
    x: int, n: int, confidence: float = 0.95, method: IntervalMethod = "clopper-pearson"
) -> tuple[float, float]:
    """The interval for x/n by ``method``."""
    if method == "wilson":
        return wilson(x, n, confidence)
    if method == "clopper-pearson":
        return clopper_pearson(x, n, confidence)
    raise ValueError(f"unknown interval method {method!r}; choose one of {', '.join(METHODS)}")
