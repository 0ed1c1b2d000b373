"""A report with the spans its run recorded, for a page that draws each case's trace."""

from __future__ import annotations

from dataclasses import dataclass

from assay._display import Displayed
from assay.outcomes import Span
from assay.report._model import Report


@dataclass(frozen=True)
class TracedReport(Displayed):
    """``report`` and its run's recorded ``spans``: its HTML page draws a waterfall in each
    case's drawer; every other format is the report's own."""

    report: Report
    spans: tuple[Span, ...]


__all__ = ["TracedReport"]
