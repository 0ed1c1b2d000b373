"""The interval setting: one value saying at which level and by which method every interval
of a report, comparison or trend is computed."""

from __future__ import annotations

import math
from dataclasses import dataclass

from assay.metrics._intervals import METHODS, IntervalMethod, interval


@dataclass(frozen=True, slots=True)
class IntervalSetting:
    """A two-sided confidence level in (0, 1) and an interval method, checked once here.

    >>> IntervalSetting()
    IntervalSetting(confidence=0.95, method='clopper-pearson')
    >>> IntervalSetting(0.9, "wilson").limits(81, 263) == interval(81, 263, 0.9, "wilson")
    True
    >>> IntervalSetting(1.0)
    Traceback (most recent call last):
    ...
    ValueError: interval confidence must be between 0 and 1 (exclusive), got 1.0
    """

    confidence: float = 0.95
    method: IntervalMethod = "clopper-pearson"

    def __post_init__(self) -> None:
        level = self.confidence
        if (
            isinstance(level, bool)
            or not isinstance(level, (int, float))
            or math.isnan(level)
            or not 0 < level < 1
        ):
            raise ValueError(
                f"interval confidence must be between 0 and 1 (exclusive), got {level!r}"
            )
        if self.method not in METHODS:
            raise ValueError(
                f"unknown interval method {self.method!r}; choose one of {', '.join(METHODS)}"
            )

    def limits(self, x: int, n: int) -> tuple[float, float]:
        """The interval for x/n at this level by this method."""
        return interval(x, n, self.confidence, self.method)


DEFAULT_INTERVAL = IntervalSetting()
"""95% Clopper–Pearson: the level and method of every interval unless the user asks."""
