"""Quality over time: one suite's runs with a metric, paired changes and run-to-run noise."""

from assay.trend._build import RULE, SuiteRun, build_trend, dataset_change, paired_test
from assay.trend._gate import LAST, TrendRule, check_trend_rule, parse_trend_rule, trend_gate
from assay.trend._metric import METRICS, Metric, p95
from assay.trend._model import (
    TREND_SCHEMA_VERSION,
    Change,
    DatasetChange,
    Point,
    ReplicateGroup,
    Trend,
    trend_schema,
)
from assay.trend._render import (
    FORMATS,
    render_json,
    render_markdown,
    render_text,
    sparkline,
)

__all__ = [
    "FORMATS",
    "LAST",
    "METRICS",
    "RULE",
    "TREND_SCHEMA_VERSION",
    "Change",
    "DatasetChange",
    "Metric",
    "Point",
    "ReplicateGroup",
    "SuiteRun",
    "Trend",
    "TrendRule",
    "build_trend",
    "check_trend_rule",
    "dataset_change",
    "p95",
    "paired_test",
    "parse_trend_rule",
    "render_json",
    "render_markdown",
    "render_text",
    "sparkline",
    "trend_gate",
    "trend_schema",
]
