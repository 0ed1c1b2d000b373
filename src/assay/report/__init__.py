"""Reports: the model every format renders (the renderers are ``assay.render``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.report._build import build_report, split_block
    from assay.report._calibration import (
        CalibrationReport,
        HumanLabel,
        JudgedRow,
        calibration_problem,
    )
    from assay.report._composite import (
        CompositeReport,
        build_composite_report,
        composite_schema,
    )
    from assay.report._correction import JudgeCorrection, judge_correction
    from assay.report._kept import KeptRows, kept_values
    from assay.report._listings import RunListing
    from assay.report._model import (
        HELDOUT_BANNER,
        JUDGE_CACHE_HIT,
        SCHEMA_VERSION,
        SYNTHETIC_BANNER,
        CacheSummary,
        CaseRow,
        DatasetChange,
        DatasetInfo,
        GraderInfo,
        HeldoutNote,
        JudgeDetail,
        Report,
        SplitBlock,
        SyntheticSection,
    )
    from assay.report._recompute import at_level, report_problems, row_trial_problems
    from assay.report._rows import ROW_FIELDS, Brief, CaseRows, chunked, close_rows, row_of
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
    from assay.report._streamed import streamed_lines_report, streamed_report
    from assay.report._summarize import summarize
    from assay.report._traced import TracedReport
    from assay.report._usage import (
        Latency,
        Price,
        PriceInfo,
        UsageSummary,
        summarize_usage,
    )

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "build_report": "assay.report._build",
    "split_block": "assay.report._build",
    "CalibrationReport": "assay.report._calibration",
    "calibration_problem": "assay.report._calibration",
    "HumanLabel": "assay.report._calibration",
    "JudgedRow": "assay.report._calibration",
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
    "HELDOUT_BANNER": "assay.report._model",
    "DatasetInfo": "assay.report._model",
    "GraderInfo": "assay.report._model",
    "HeldoutNote": "assay.report._model",
    "SplitBlock": "assay.report._model",
    "SyntheticSection": "assay.report._model",
    "JudgeDetail": "assay.report._model",
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
    "Latency": "assay.report._usage",
    "PriceInfo": "assay.report._usage",
    "RunListing": "assay.report._listings",
    "chunked": "assay.report._rows",
    "close_rows": "assay.report._rows",
    "ROW_FIELDS": "assay.report._rows",
    "Brief": "assay.report._rows",
    "row_of": "assay.report._rows",
    "CaseRows": "assay.report._rows",
    "streamed_lines_report": "assay.report._streamed",
    "streamed_report": "assay.report._streamed",
    "KeptRows": "assay.report._kept",
    "kept_values": "assay.report._kept",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "HELDOUT_BANNER",
    "JUDGE_CACHE_HIT",
    "PAIRED",
    "ROW_FIELDS",
    "SCHEMA_VERSION",
    "SEQUENTIAL_KEY",
    "SYNTHETIC_BANNER",
    "Brief",
    "CacheSummary",
    "CalibrationReport",
    "CaseRow",
    "CaseRows",
    "CompositeReport",
    "DatasetChange",
    "DatasetInfo",
    "GraderInfo",
    "HeldoutNote",
    "HumanLabel",
    "JudgeCorrection",
    "JudgeDetail",
    "JudgedRow",
    "KeptRows",
    "Latency",
    "Price",
    "PriceInfo",
    "Report",
    "RunListing",
    "SequentialMonitor",
    "SequentialRule",
    "SequentialSection",
    "SplitBlock",
    "SyntheticSection",
    "TracedReport",
    "UsageSummary",
    "at_level",
    "build_composite_report",
    "build_report",
    "calibration_problem",
    "chunked",
    "close_rows",
    "composite_schema",
    "drawn_denominator",
    "judge_correction",
    "kept_values",
    "name_drawn",
    "report_problems",
    "report_schema",
    "row_of",
    "row_trial_problems",
    "sequence_text",
    "sequential_settings",
    "split_block",
    "streamed_lines_report",
    "streamed_report",
    "summarize",
    "summarize_usage",
]
