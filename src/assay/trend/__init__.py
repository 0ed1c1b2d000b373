"""Quality over time: one suite's runs with a metric, paired changes and run-to-run noise."""

from assay.trend._build import SuiteRun, build_trend, paired_test
from assay.trend._metric import Metric, p95
from assay.trend._model import (
    Point,
    Trend,
    trend_schema,
)

__all__ = [
    "Metric",
    "Point",
    "SuiteRun",
    "Trend",
    "build_trend",
    "p95",
    "paired_test",
    "trend_schema",
]
