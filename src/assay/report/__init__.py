"""Reports: the model every format renders, and the renderers (strings, no I/O)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
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
    from assay.report._recompute import at_level, report_problems, row_trial_problems
    from assay.report._schema import report_schema
    from assay.report._summarize import summarize
    from assay.report._traced import TracedReport
    from assay.report._usage import (
        Price,
        UsageSummary,
        summarize_usage,
    )

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "build_report": "assay.report._build",
    "CompositeReport": "assay.report._composite",
    "build_composite_report": "assay.report._composite",
    "composite_schema": "assay.report._composite",
    "GateOutcome": "assay.report._gate_outcome",
    "OPERATORS": "assay.report._gates",
    "GateResult": "assay.report._gates",
    "Rule": "assay.report._gates",
    "check_rule": "assay.report._gates",
    "check_scale": "assay.report._gates",
    "evaluate_gates": "assay.report._gates",
    "gates_passed": "assay.report._gates",
    "parse_rule": "assay.report._gates",
    "split_rule": "assay.report._gates",
    "JUDGE_CACHE_HIT": "assay.report._model",
    "SCHEMA_VERSION": "assay.report._model",
    "SYNTHETIC_BANNER": "assay.report._model",
    "CacheSummary": "assay.report._model",
    "CaseRow": "assay.report._model",
    "DatasetChange": "assay.report._model",
    "Report": "assay.report._model",
    "at_level": "assay.report._recompute",
    "report_problems": "assay.report._recompute",
    "row_trial_problems": "assay.report._recompute",
    "report_schema": "assay.report._schema",
    "summarize": "assay.report._summarize",
    "TracedReport": "assay.report._traced",
    "Price": "assay.report._usage",
    "UsageSummary": "assay.report._usage",
    "summarize_usage": "assay.report._usage",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


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
    "row_trial_problems",
    "split_rule",
    "summarize",
    "summarize_usage",
]
