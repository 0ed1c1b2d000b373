"""Reports: the model every format renders, and the renderers (strings, no I/O)."""

from assay.report._build import build_report
from assay.report._composite import (
    CompositeReport,
    build_composite_report,
    composite_schema,
)
from assay.report._gate_outcome import GateOutcome
from assay.report._gates import (
    OPERATORS,
    GateResult,
    Rule,
    RuleParts,
    check_rule,
    check_scale,
    evaluate_gates,
    gates_passed,
    parse_rule,
    split_rule,
)
from assay.report._model import (
    JUDGE_CACHE_HIT,
    SCHEMA_VERSION,
    SYNTHETIC_BANNER,
    CacheSummary,
    CaseRow,
    DatasetChange,
    Report,
)
from assay.report._recompute import at_level, report_problems
from assay.report._schema import report_schema
from assay.report._summarize import summarize
from assay.report._traced import TracedReport
from assay.report._usage import (
    Price,
    UsageSummary,
    summarize_usage,
)

__all__ = [
    "JUDGE_CACHE_HIT",
    "OPERATORS",
    "SCHEMA_VERSION",
    "SYNTHETIC_BANNER",
    "CacheSummary",
    "CaseRow",
    "CompositeReport",
    "DatasetChange",
    "GateOutcome",
    "GateResult",
    "Price",
    "Report",
    "Rule",
    "RuleParts",
    "TracedReport",
    "UsageSummary",
    "at_level",
    "build_composite_report",
    "build_report",
    "check_rule",
    "check_scale",
    "composite_schema",
    "evaluate_gates",
    "gates_passed",
    "parse_rule",
    "report_problems",
    "report_schema",
    "split_rule",
    "summarize",
    "summarize_usage",
]
