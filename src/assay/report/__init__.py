"""Reports: the model every format renders (the renderers are ``assay.render``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.report._budget import (
        BUDGET_KEY,
        BUDGET_LIMITS,
        BudgetSection,
        budget_denominator,
        budget_limits_text,
        budget_lines,
        budget_settings,
        name_run,
    )
    from assay.report._build import build_report
    from assay.report._calibration import CalibrationReport, calibration_problem
    from assay.report._composite import (
        CompositeReport,
        build_composite_report,
        composite_schema,
    )
    from assay.report._correction import JudgeCorrection, judge_correction
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
    from assay.report._sequential import (
        PAIRED,
        SEQUENTIAL_KEY,
        SequentialMonitor,
        SequentialRule,
        SequentialSection,
        drawn_denominator,
        name_drawn,
        sequence_text,
        sequential_settings,
    )
    from assay.report._summarize import summarize
    from assay.report._traced import TracedReport
    from assay.report._usage import (
        Price,
        UsageSummary,
        record_cost,
        served_from_cache,
        summarize_usage,
    )

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "BUDGET_KEY": "assay.report._budget",
    "BUDGET_LIMITS": "assay.report._budget",
    "BudgetSection": "assay.report._budget",
    "budget_denominator": "assay.report._budget",
    "budget_limits_text": "assay.report._budget",
    "budget_lines": "assay.report._budget",
    "budget_settings": "assay.report._budget",
    "name_run": "assay.report._budget",
    "build_report": "assay.report._build",
    "CalibrationReport": "assay.report._calibration",
    "calibration_problem": "assay.report._calibration",
    "CompositeReport": "assay.report._composite",
    "build_composite_report": "assay.report._composite",
    "composite_schema": "assay.report._composite",
    "JudgeCorrection": "assay.report._correction",
    "judge_correction": "assay.report._correction",
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
    "PAIRED": "assay.report._sequential",
    "SEQUENTIAL_KEY": "assay.report._sequential",
    "SequentialMonitor": "assay.report._sequential",
    "SequentialRule": "assay.report._sequential",
    "SequentialSection": "assay.report._sequential",
    "sequential_settings": "assay.report._sequential",
    "drawn_denominator": "assay.report._sequential",
    "name_drawn": "assay.report._sequential",
    "sequence_text": "assay.report._sequential",
    "summarize": "assay.report._summarize",
    "TracedReport": "assay.report._traced",
    "Price": "assay.report._usage",
    "UsageSummary": "assay.report._usage",
    "summarize_usage": "assay.report._usage",
    "record_cost": "assay.report._usage",
    "served_from_cache": "assay.report._usage",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "BUDGET_KEY",
    "BUDGET_LIMITS",
    "JUDGE_CACHE_HIT",
    "PAIRED",
    "SCHEMA_VERSION",
    "SEQUENTIAL_KEY",
    "SYNTHETIC_BANNER",
    "BudgetSection",
    "CacheSummary",
    "CalibrationReport",
    "CaseRow",
    "CompositeReport",
    "DatasetChange",
    "JudgeCorrection",
    "Price",
    "Report",
    "SequentialMonitor",
    "SequentialRule",
    "SequentialSection",
    "TracedReport",
    "UsageSummary",
    "at_level",
    "budget_denominator",
    "budget_limits_text",
    "budget_lines",
    "budget_settings",
    "build_composite_report",
    "build_report",
    "calibration_problem",
    "composite_schema",
    "drawn_denominator",
    "judge_correction",
    "name_drawn",
    "name_run",
    "record_cost",
    "report_problems",
    "report_schema",
    "row_trial_problems",
    "sequence_text",
    "sequential_settings",
    "served_from_cache",
    "summarize",
    "summarize_usage",
]
