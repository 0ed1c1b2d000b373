"""A coverage matrix as a document (terminal text, Markdown), JSON or an HTML heat map."""

from __future__ import annotations

import json

from assay.cases import Coverage, cell_count, coverage_columns, coverage_html, coverage_json
from assay.render.document import (
    Block,
    BulletList,
    Cell,
    Document,
    Gap,
    Heading,
    Only,
    Paragraph,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text


def coverage_document(cov: Coverage) -> Document:
    """The counts per slice and column, how thin a cell may be, and what is wrong."""
    head = ["slice", *(f"{b} · {sp}" for b, sp in coverage_columns(cov))]
    rows: list[list[Cell]] = [
        [s, *(cell_count(cov.cell(s, b, sp)) for b, sp in coverage_columns(cov))]
        for s in cov.slices
    ]
    problems = tuple(f"{p.severity}: {p.message}" for p in cov.problems)
    text: tuple[Block, ...] = (
        Paragraph.of(f"assay coverage · {cov.dataset} · {cov.total} cases", layout="whole"),
        Gap(),
        table(head, rows, plain=True),
        Gap(),
        Paragraph.of(f"thin: fewer than {cov.min_cases} real cases in a cell", layout="whole"),
        BulletList(problems, layout="whole"),
    )
    markdown: list[Block] = [
        Heading(f"assay coverage: {cov.dataset}"),
        table(head, rows),
        Paragraph.of(f"{cov.total} cases; thin below {cov.min_cases} real cases per cell."),
    ]
    if problems:
        markdown.append(BulletList(problems))
    return Document((Only("text", text), Only("markdown", tuple(markdown))))


def render_coverage(cov: Coverage, fmt: str) -> str:
    """``cov`` as ``text``, ``json``, ``markdown`` or ``html`` (a heat map)."""
    if fmt == "json":
        return json.dumps(coverage_json(cov), indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        return coverage_html(cov)
    if fmt == "markdown":
        return write_markdown(coverage_document(cov))

    return write_text(coverage_document(cov))
