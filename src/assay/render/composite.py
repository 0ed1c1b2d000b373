"""Rendering a ``CompositeReport`` in one of the formats: text, json or markdown."""

from __future__ import annotations

from assay.formats import formats
from assay.render._model_json import model_json
from assay.render.composite_document import composite_document
from assay.render.composite_html import render_composite_html
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text
from assay.report import CompositeReport

COMPOSITE_FORMATS: tuple[str, ...] = formats("composite")


def render_composite(report: CompositeReport, fmt: str, *, color: bool = False) -> str:
    """``report`` in format ``fmt``; the JSON form is the schema every other renders."""
    if fmt == "json":
        return model_json(report) + "\n"
    if fmt == "markdown":
        return write_markdown(composite_document(report))
    if fmt == "text":
        return write_text(composite_document(report), color=color)
    if fmt == "html":
        return render_composite_html(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(COMPOSITE_FORMATS)}")
