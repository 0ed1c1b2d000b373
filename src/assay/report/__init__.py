"""Reports: the model every format renders, and the renderers (strings, no I/O)."""

from assay.report._build import build_report
from assay.report._model import (
    SCHEMA_VERSION,
    SYNTHETIC_BANNER,
    CaseRow,
    DatasetInfo,
    GraderInfo,
    Report,
    SyntheticSection,
)

__all__ = [
    "SCHEMA_VERSION",
    "SYNTHETIC_BANNER",
    "CaseRow",
    "DatasetInfo",
    "GraderInfo",
    "Report",
    "SyntheticSection",
    "build_report",
]
