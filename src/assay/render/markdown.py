"""The report as GitHub-flavoured Markdown, for CI summaries and pull requests."""

from __future__ import annotations

from assay.render.markdown_writer import write_markdown
from assay.render.report_document import report_document
from assay.report import Report


def render_markdown(report: Report) -> str:
    """Headline rates with named denominators and intervals, status counts, slices, cases."""
    return write_markdown(report_document(report))


__all__ = ["render_markdown"]
