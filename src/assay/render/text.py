"""The report for a terminal, drawn with rich; returned as a string."""

from __future__ import annotations

from assay.render.report_document import STATUS_STYLE, TABLE_ROWS, report_document
from assay.render.text_writer import write_text
from assay.report import Report


def render_text(report: Report, *, color: bool = False, width: int = 120) -> str:
    """Headline rates, the status sum, slices and the non-passing cases."""
    return write_text(report_document(report), color=color, width=width)


__all__ = ["STATUS_STYLE", "TABLE_ROWS", "render_text"]
