"""The calibration report as a document (terminal text, Markdown), JSON or a self-contained
HTML page."""

from __future__ import annotations

import html

import assay.render._format as f
from assay.formats import formats
from assay.metrics import Kappa, Rate
from assay.render._model_json import model_json
from assay.render.document import (
    Block,
    BulletList,
    Cell,
    Column,
    Document,
    Gap,
    Heading,
    Only,
    Paragraph,
    Preformatted,
    Span,
    Table,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text
from assay.report import CalibrationReport, Disagreement

CALIBRATION_FORMATS: tuple[str, ...] = formats("calibration")


def render_calibration(report: CalibrationReport, fmt: str) -> str:
    """``report`` in ``fmt`` (text, json, markdown or html)."""
    if fmt == "json":
        return model_json(report) + "\n"
    if fmt == "markdown":
        return _markdown(report)
    if fmt == "text":
        return _text(report)
    if fmt == "html":
        return _html(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(CALIBRATION_FORMATS)}")


def kappa_text(k: Kappa) -> str:
    """'0.412 [0.180, 0.644] (linear weights, 95% CI, 30 pairs)' or 'n/a (…)'."""
    if k.value is None:
        why = "no scored pairs" if k.n == 0 else "chance agreement is 1 (a single score used)"
        return f"n/a ({why})"
    ci = f" [{k.interval[0]:.3f}, {k.interval[1]:.3f}]" if k.interval else ""
    return (
        f"{k.value:.3f}{ci} ({k.weights} weights, {k.confidence * 100:g}% CI, large-sample, "
        f"{k.n} pairs)"
    )


def _rates(report: CalibrationReport) -> list[tuple[str, Rate]]:
    return [
        ("False accepts", report.false_accepts),
        ("False rejects", report.false_rejects),
        ("Verdict agreement", report.agreement),
    ]


def _head(report: CalibrationReport) -> list[str]:
    graders = ", ".join(report.graders) or "unknown grader"
    return [
        f"labels {report.labels_file} · judged {report.judged_from} · {graders}",
        f"{report.labelled} labelled cases; {report.judged} judged (passed or failed); "
        f"{len(report.ungraded)} without a judgment; {report.unlabelled} judged cases have "
        f"no label. A human pass is a score of at least {report.pass_minimum}.",
    ]


def _confusion_lines(report: CalibrationReport) -> list[str]:
    lines = [f"Confusion (rows: human score, columns: judge score; {report.scored_pairs} pairs)"]
    lines.append("        judge 0  judge 1  judge 2")
    for h, row in enumerate(report.confusion):
        lines.append(f"human {h}  " + "  ".join(f"{c:7d}" for c in row))
    return lines


def _rate_table(report: CalibrationReport) -> Table:
    columns = [
        Column("Metric"),
        Column("Fraction", "right"),
        Column("Value"),
        Column(f.ci_label(report.false_accepts)),
        Column("Denominator"),
    ]
    rows: list[list[Cell]] = [
        [name, f.fraction(r), f.value(r), f.ci(r), f.named(r)] for name, r in _rates(report)
    ]
    return table(columns, rows, plain=True)


def _disagreement(d: Disagreement, title: str | None) -> list[Block]:
    head = (
        f"{d.id} [{d.slice}] {d.kind}: human {_score(d.human_score, d.human_pass)}, "
        f"judge {_score(d.judge_score, d.judge_pass)}"
    )
    said = (
        f"human ({d.reviewer or 'reviewer unknown'}): {d.human_note or '—'}",
        f"judge: {d.judge_reason}",
    )
    return [
        BulletList((head,), title, layout="whole", marker="  "),
        BulletList(said, layout="whole", marker="      "),
    ]


def _text_blocks(report: CalibrationReport) -> list[Block]:
    """The rates, kappa, the confusion and the lists for a terminal."""
    first, second = _head(report)
    blocks: list[Block] = [
        _line(f"assay calibration · {first}"),
        _line(second),
        Gap(),
        _rate_table(report),
        Gap(),
        _line(f"Weighted kappa: {kappa_text(report.kappa)}"),
        Gap(),
        Preformatted(tuple(_confusion_lines(report))),
    ]
    if report.slices:
        slices = tuple(
            f"{s.slice:<22} {f.fraction(s.agreement):>6}  {f.value(s.agreement):<8} "
            f"{f.ci(s.agreement):<18} false accepts {s.false_accepts}, "
            f"false rejects {s.false_rejects}"
            for s in report.slices.values()
        )
        blocks += [Gap(), BulletList(slices, "Agreement per slice", "whole", "  ")]
    if report.ungraded:
        unjudged = tuple(
            f"{u.id}{f' trial {u.trial}' if u.trial and u.trial > 1 else ''}  "
            f"{u.status}: {u.reason}"
            for u in report.ungraded
        )
        title = "Without a judgment (count in no rate; investigate)"
        blocks += [Gap(), BulletList(unjudged, title, "whole", "  ")]
    if report.disagreements:
        blocks.append(Gap())
        for i, d in enumerate(report.disagreements):
            blocks += _disagreement(d, "Disagreements" if i == 0 else None)
    return blocks


def _line(text: str) -> Paragraph:
    return Paragraph.of(text, layout="whole")


def _score(score: int | None, passed: bool) -> str:
    verdict = "pass" if passed else "fail"
    return f"{score} ({verdict})" if score is not None else verdict


def _figure(text: str) -> Span:
    return Span(text, "figure")


def _markdown_blocks(report: CalibrationReport) -> list[Block]:
    """The same figures as Markdown tables."""
    first, second = _head(report)
    rates: list[list[Cell]] = [
        [name, _figure(f.fraction(r)), f.value(r), _figure(f.ci(r)), f.named(r)]
        for name, r in _rates(report)
    ]
    rate_columns = [
        Column("Metric"),
        Column("Fraction", "right"),
        Column("Value", "right"),
        Column(f.ci_label(report.false_accepts)),
        Column("Denominator"),
    ]
    confusion: list[list[Cell]] = [
        [str(h), *(str(c) for c in row)] for h, row in enumerate(report.confusion)
    ]
    confusion_columns = [
        Column(_figure("human \\ judge")),
        *(Column(str(score), "right") for score in range(3)),
    ]
    blocks: list[Block] = [
        Heading(f"assay calibration: {first}"),
        Paragraph.of(second),
        table(rate_columns, rates),
        Paragraph.of(Span("Weighted kappa:", "strong"), " ", _figure(kappa_text(report.kappa))),
        table(confusion_columns, confusion),
    ]
    if report.slices:
        slices: list[list[Cell]] = [
            [
                s.slice,
                _figure(f.fraction(s.agreement)),
                f.value(s.agreement),
                _figure(f.ci(s.agreement)),
                str(s.false_accepts),
                str(s.false_rejects),
            ]
            for s in report.slices.values()
        ]
        columns = [
            Column("Slice"),
            Column("Agreement", "right"),
            Column("Value", "right"),
            Column("Interval"),
            Column("False accepts", "right"),
            Column("False rejects", "right"),
        ]
        blocks.append(table(columns, slices))
    if report.ungraded:
        rows: list[list[Cell]] = [[u.id, u.status, u.reason] for u in report.ungraded]
        blocks += [
            Paragraph.of(Span("Without a judgment", "strong"), " (count in no rate):"),
            table(["Case", "Status", "Reason"], rows),
        ]
    if report.disagreements:
        rows = [
            [
                d.id,
                d.slice,
                d.kind,
                _score(d.human_score, d.human_pass),
                _score(d.judge_score, d.judge_pass),
                d.human_note or "",
                d.judge_reason,
            ]
            for d in report.disagreements
        ]
        head = ["Case", "Slice", "Kind", "Human", "Judge", "Human note", "Judge reason"]
        blocks.append(table(head, rows))
    return blocks


def calibration_document(report: CalibrationReport) -> Document:
    """The calibration report: what terminal text and Markdown each show of it."""
    return Document(
        (
            Only("text", tuple(_text_blocks(report))),
            Only("markdown", tuple(_markdown_blocks(report))),
        )
    )


def _text(report: CalibrationReport) -> str:

    return write_text(calibration_document(report))


def _markdown(report: CalibrationReport) -> str:

    return write_markdown(calibration_document(report))


def _html(report: CalibrationReport) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(name)}</td><td>{f.fraction(r)}</td><td>{e(f.value(r))}</td>"
        f"<td>{e(f.ci(r))}</td><td>{e(f.named(r))}</td></tr>"
        for name, r in _rates(report)
    )
    confusion = "".join(
        f"<tr><th>human {h}</th>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
        for h, row in enumerate(report.confusion)
    )
    slices = "".join(
        f"<tr><td>{e(s.slice)}</td><td>{f.fraction(s.agreement)}</td>"
        f"<td>{e(f.value(s.agreement))}</td><td>{e(f.ci(s.agreement))}</td>"
        f"<td>{s.false_accepts}</td><td>{s.false_rejects}</td></tr>"
        for s in report.slices.values()
    )
    unjudged = "".join(
        f"<tr><td>{e(u.id)}</td><td>{e(u.status)}</td><td>{e(u.reason)}</td></tr>"
        for u in report.ungraded
    )
    disagreements = "".join(
        f"<tr><td>{e(d.id)}</td><td>{e(d.slice)}</td><td>{e(d.kind)}</td>"
        f"<td>{e(_score(d.human_score, d.human_pass))}</td>"
        f"<td>{e(_score(d.judge_score, d.judge_pass))}</td>"
        f"<td>{e(d.human_note or '')}</td><td>{e(d.judge_reason)}</td></tr>"
        for d in report.disagreements
    )
    head = "".join(f"<p>{e(line)}</p>" for line in _head(report))
    return (
        "<!doctype html><!-- generated by assay --><html lang=en><head><meta charset=utf-8>"
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">"
        "<title>assay calibration</title><style>body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
        "padding:.2em .5em;text-align:left}</style></head><body>"
        f"<h1>assay calibration</h1>{head}"
        "<table><tr><th>Metric</th><th>Fraction</th><th>Value</th>"
        f"<th>{e(f.ci_label(report.false_accepts))}</th><th>Denominator</th></tr>{rows}</table>"
        f"<p>Weighted kappa: {e(kappa_text(report.kappa))}</p>"
        "<table><tr><th>human \\ judge</th><th>0</th><th>1</th><th>2</th></tr>"
        f"{confusion}</table>"
        "<h2>Agreement per slice</h2><table><tr><th>Slice</th><th>Agreement</th><th>Value</th>"
        f"<th>Interval</th><th>False accepts</th><th>False rejects</th></tr>{slices}</table>"
        "<h2>Without a judgment</h2><table><tr><th>Case</th><th>Status</th><th>Reason</th></tr>"
        f"{unjudged}</table>"
        "<h2>Disagreements</h2><table><tr><th>Case</th><th>Slice</th><th>Kind</th><th>Human</th>"
        f"<th>Judge</th><th>Human note</th><th>Judge reason</th></tr>{disagreements}</table>"
        "</body></html>\n"
    )
