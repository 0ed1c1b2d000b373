"""A rate: numerator over a named denominator, with its value and confidence interval."""

from __future__ import annotations

from pydantic import ConfigDict

from assay.metrics._former_ci95 import FormerCi95
from assay.metrics._intervals import IntervalMethod
from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting


class Rate(FormerCi95):
    """``numerator / denominator`` where the denominator is named.

    ``value`` is None (shown as "n/a") when the denominator is 0, never 0.0. ``ci`` is the
    two-sided interval at ``confidence`` (0.95 unless the user asked otherwise) computed by
    ``method``; None when the denominator is 0.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    numerator: int
    denominator: int
    denominator_name: str
    numerator_name: str = ""
    value: float | None
    ci: tuple[float, float] | None
    confidence: float = 0.95
    method: IntervalMethod = "clopper-pearson"

    @property
    def na_reason(self) -> str:
        """Why the rate is unavailable, e.g. "no substantive answers"."""
        return f"no {self.denominator_name}"


def rate(
    numerator: int,
    denominator: int,
    denominator_name: str,
    *,
    numerator_name: str = "",
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> Rate:
    """A ``Rate``; null value and interval when ``denominator`` is 0.

    >>> rate(1, 3, "substantive answers").value
    0.3333333333333333
    >>> rate(0, 0, "substantive answers").value is None
    True
    """
    if numerator < 0 or denominator < 0 or numerator > denominator:
        raise ValueError(f"invalid rate {numerator}/{denominator}")
    if denominator == 0:
        return Rate(
            numerator=0,
            denominator=0,
            denominator_name=denominator_name,
            numerator_name=numerator_name,
            value=None,
            ci=None,
            confidence=interval.confidence,
            method=interval.method,
        )
    return Rate(
        numerator=numerator,
        denominator=denominator,
        denominator_name=denominator_name,
        numerator_name=numerator_name,
        value=numerator / denominator,
        ci=interval.limits(numerator, denominator),
        confidence=interval.confidence,
        method=interval.method,
    )
