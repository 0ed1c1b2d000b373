"""The composite report as a ``Document``: what its text and Markdown show, said once."""

from __future__ import annotations

import assay.render._composite_format as cf
import assay.render._format as f
from assay.render._lists import LIST_ROWS, capped
from assay.render.document import (
    Banner,
    Block,
    Cell,
    Column,
    Document,
    Gap,
    Heading,
    Only,
    Paragraph,
    Span,
    Table,
    table,
)
from assay.render.report_document import dataset_paragraph, rates_table
from assay.report import CompositeCaseRow, CompositeReport

VERDICT_STYLE = {"pass": "green", "fail": "red", "ungraded": "cyan"}
"""The terminal colour of each verdict."""


def _verdict(value: str) -> Span:
    return Span(value, color=VERDICT_STYLE.get(value))


def _cases_table(rows: list[CompositeCaseRow], title: str) -> Table:
    cells: list[list[Cell]] = [
        [
            r.label,
            r.status,
            cf.score(r.score),
            cf.critical(r),
            _verdict(r.verdict),
            _verdict(r.strict_verdict),
            cf.failed_checks(r),
        ]
        for r in rows[:LIST_ROWS]
    ]
    columns: list[Column | str] = [
        "Case",
        Column("Status", whole=True),
        Column("Score", "right", whole=True),
        "Critical failures",
        Column("Composite", whole=True),
        Column("Strict", whole=True),
        "Failed checks",
    ]
    return table(columns, capped(cells, total=len(rows)), title=title, pad_edge=True)


def _checks_table(report: CompositeReport) -> Table:
    columns: list[Column | str] = [
        "Check",
        Column("Weight", "right", whole=True),
        "Critical",
        Column("Failed", "right", whole=True),
        Column("Not evaluated", "right", whole=True),
    ]
    rows: list[list[Cell]] = [
        [name, f"{c.weight:g}", "yes" if c.critical else "", str(c.failed), str(c.not_evaluated)]
        for name, c in report.check_failures.items()
    ]
    return table(columns, rows, title=f"Check failures (real {cf.unit(report)})", pad_edge=True)


def _title(report: CompositeReport) -> list[Block]:
    d = report.dataset
    text: list[Block] = [
        Heading(
            f"assay composite · dataset {d.name} ({f.short_version(d.version)}…) · "
            f"{d.cases} real cases · input: {report.input}"
        ),
        Paragraph.of(cf.profile_line(report)),
        Paragraph.of(cf.weights_line(report), layout="whole"),
    ]
    markdown: list[Block] = [
        Heading(f"assay composite: {d.name}"),
        dataset_paragraph(
            d.name,
            d.version,
            f", {d.cases} real cases; input: {report.input}; assay {report.assay_version}.",
        ),
        Paragraph.of(f"{cf.profile_line(report)}; {cf.weights_line(report)}."),
    ]
    return [Only("text", tuple(text)), Only("markdown", tuple(markdown))]


def _synthetic(report: CompositeReport) -> list[Block]:
    s = report.synthetic
    if s is None:
        return []
    rows: list[list[Cell]] = [
        [
            r.label,
            cf.provenance(r),
            cf.score(r.score),
            _verdict(r.verdict),
            _verdict(r.strict_verdict),
            r.reason,
        ]
        for r in report.cases
        if r.synthetic
    ]
    columns: list[Column | str] = [
        Column("Case", whole=True),
        "Provenance",
        Column("Score", "right", whole=True),
        Column("Composite", whole=True),
        Column("Strict", whole=True),
        "Reason",
    ]
    return [
        Gap(),
        Banner(s.banner),
        Paragraph.of(
            f"{len(s.case_ids)} synthetic case(s), never counted above: composite "
            f"{f.fraction(s.composite_pass)}, strict {f.fraction(s.strict_pass)} passed."
        ),
        table(columns, rows, pad_edge=True),
    ]


def composite_document(report: CompositeReport) -> Document:
    """Header, per-case table, pass rates, statuses, check failures, divergence, why each
    case did not pass (question and answer beside the reason), and the synthetic cases."""
    real = [r for r in report.cases if not r.synthetic]
    blocks: list[Block] = [
        *_title(report),
        Gap(),
        _cases_table(real, f"Real {cf.unit(report)}"),
        Gap(),
        rates_table(cf.headline(report), f.ci_label(report.composite_pass), fraction="left"),
        Gap(),
        Paragraph.of(
            Span("Statuses:", "strong"),
            " " + f.status_sum(report.statuses, report.total, cf.unit(report)),
        ),
        Gap(),
        _checks_table(report),
        Gap(),
        Paragraph.of(Span(cf.divergence(report), "strong")),
    ]
    not_passed = [r for r in real if r.verdict != "pass" or r.strict_verdict != "pass"]
    if not_passed:
        rows = [[r.label, cf.clip(r.question), cf.clip(r.answer), r.reason] for r in not_passed]
        columns = ["Case", "Question", "Answer", "Reason"]
        blocks += [Gap(), table(columns, capped(rows), title="Why", pad_edge=True)]
    blocks += _synthetic(report)
    return Document(tuple(blocks))


__all__ = ["VERDICT_STYLE", "composite_document"]
