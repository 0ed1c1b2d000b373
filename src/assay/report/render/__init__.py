"""Renderers: each turns a ``Report`` into a string in one format."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from assay.report._model import Report

Format = Literal["text", "json", "markdown", "html", "junit"]
FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html", "junit")


def render(report: Report, fmt: str, *, color: bool = False) -> str:
    """``report`` in format ``fmt`` (text, json, markdown, html or junit)."""
    if fmt == "json":
        from assay.report.render.json import render_json

        return render_json(report)
    if fmt == "markdown":
        from assay.report.render.markdown import render_markdown

        return render_markdown(report)
    if fmt == "text":
        from assay.report.render.text import render_text

        return render_text(report, color=color)
    if fmt == "html":
        from assay.report.render.html import render_html

        return render_html(report)
    if fmt == "junit":
        from assay.report.render.junit import render_junit

        return render_junit(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_chunks(report: Report, fmt: str, *, color: bool = False) -> Iterator[str]:
    """``render``'s text in pieces (a JSON report a few thousand cases at a time), for
    writing a large report without holding it whole."""
    if fmt == "json":
        from assay.report.render.json import render_json_chunks

        yield from render_json_chunks(report)
    else:
        yield render(report, fmt, color=color)


__all__ = ["FORMATS", "Format", "render", "render_chunks"]
