"""A trend as a document (terminal text with a sparkline, Markdown with a table) or JSON."""

from __future__ import annotations

import json

import assay.render._format as f
from assay.formats import formats
from assay.render.document import (
    Block,
    BulletList,
    Cell,
    Document,
    Gap,
    Heading,
    Lines,
    Only,
    Paragraph,
    Span,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text
from assay.trend import Point, Trend

FORMATS = formats("trend")
BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float | None]) -> str:
    """One character per value, scaled between the lowest and highest; ``·`` for n/a."""
    known = [v for v in values if v is not None]
    if not known:
        return "·" * len(values)
    low, high = min(known), max(known)
    span = high - low
    out = []
    for v in values:
        if v is None:
            out.append("·")
        elif span == 0:
            out.append(BARS[len(BARS) // 2])
        else:
            out.append(BARS[min(len(BARS) - 1, int((v - low) / span * len(BARS)))])
    return "".join(out)


def _marker(point: Point) -> str:
    change = point.change
    if change is None:
        return ""
    if not change.paired:
        return "|"  # a break: not paired with the previous run
    if change.flagged:
        return "!"
    return ""


def _when(point: Point) -> str:
    return point.started_at[:16].replace("T", " ")


def change_text(point: Point) -> str:
    change = point.change
    if change is None:
        return "first run shown"
    text = change.verdict
    if change.dataset_change is not None:
        d = change.dataset_change
        text += (
            f" (cases: {d.added} added, {d.removed} removed, {d.changed} changed, "
            f"{d.unchanged} unchanged)"
        )
    if change.config_changed:
        text += "; configuration changed"
    return text


def trend_heading(trend: Trend) -> str:
    level = f"{trend.confidence * 100:g}%"
    named = f" over {trend.denominator_name}" if trend.denominator_name else ""
    return f"{trend.suite} · {trend.metric}{named} · {level} intervals ({trend.method})"


def _since(trend: Trend) -> str:
    return f"{trend.since[:19].replace('T', ' ')} UTC" if trend.since else ""


def _run_line(p: Point) -> str:
    tags = f" [{', '.join(p.tags)}]" if p.tags else ""
    commit = (p.git_commit or "-")[:10]
    return (
        f"{_marker(p) or ' '} {_when(p)}  {p.run_id}{tags}  {p.status}  "
        f"dataset {f.short_version(p.dataset_version)}  config "
        f"{f.short_version(p.config_hash)}  commit {commit}"
    )


def _text_blocks(trend: Trend) -> list[Block]:
    """Runs oldest first under a sparkline, each with its value and its change, then the
    noise of each repeated configuration and the verdict on the latest run."""
    blocks: list[Block] = [Paragraph.of(f"assay trend · {trend_heading(trend)}", layout="whole")]
    if trend.since:
        blocks.append(Paragraph.of(f"since {_since(trend)}", layout="whole"))
    if not trend.points:
        return [*blocks, Paragraph.of(trend.summary, layout="whole")]
    values = [p.value for p in trend.points]
    marks = "".join(_marker(p) or " " for p in trend.points)
    blocks.append(Paragraph.of(f"  {sparkline(values)}   oldest → newest", layout="whole"))
    if marks.strip():
        legend = f"  {marks}   | not paired with the previous run, ! changed beyond noise"
        blocks.append(Paragraph.of(legend, layout="whole"))
    blocks.append(Gap())
    for p in trend.points:
        replicas = f"  ({p.replicates} runs of this configuration)" if p.replicates > 1 else ""
        said = (f"{trend.metric} {p.shown}{replicas}", change_text(p))
        blocks += [
            Paragraph.of(_run_line(p), layout="whole"),
            BulletList(said, layout="whole", marker="    "),
        ]
    noise = tuple(
        f"noise: {len(g.runs)} runs of config {f.short_version(g.config_hash)} on dataset "
        f"{f.short_version(g.dataset_version)} spread "
        f"{'n/a' if g.spread is None else amount_text(trend, g.spread)}"
        for g in trend.groups
    )
    return [*blocks, Lines(noise), Gap(), Paragraph.of(trend.summary, layout="whole")]


def amount_text(trend: Trend, value: float) -> str:
    if trend.kind == "rate":
        return f"{value * 100:.1f} pts"
    if trend.kind == "usd":
        return f"${value:.4f}"
    return f"{value:.3f} s"


def _markdown_blocks(trend: Trend) -> list[Block]:
    """A table of the runs, one row each with its change from the run before, between the
    sparkline and the verdict, above the rule that flags a change."""
    blocks: list[Block] = [Heading(f"assay trend: {trend_heading(trend)}")]
    if trend.since:
        blocks.append(Paragraph.of(f"Since {_since(trend)}."))
    blocks.append(Paragraph.of(Span(sparkline([p.value for p in trend.points]), "code")))
    rows: list[list[Cell]] = []
    for p in trend.points:
        tags = f" ({', '.join(p.tags)})" if p.tags else ""
        flagged = p.change is not None and p.change.flagged
        rows.append(
            [
                _when(p),
                (Span(p.run_id, "code"), tags),
                Span(p.status, "figure"),
                Span(f.short_version(p.dataset_version), "figure"),
                Span(f.short_version(p.config_hash), "figure"),
                (p.git_commit or "-")[:10],
                p.shown,
                Span(change_text(p), "strong") if flagged else change_text(p),
            ]
        )
    columns = ["Started (UTC)", "Run", "Status", "Dataset", "Config", "Commit", "Value", "Change"]
    return [
        *blocks,
        table(columns, rows),
        Paragraph.of(Span(trend.summary, "strong")),
        Paragraph.of(Span(trend.rule, "aside")),
    ]


def trend_document(trend: Trend) -> Document:
    """The trend: what terminal text and Markdown each show of it."""
    return Document(
        (Only("text", tuple(_text_blocks(trend))), Only("markdown", tuple(_markdown_blocks(trend))))
    )


def render_text(trend: Trend) -> str:
    """Rows of runs, oldest first, under a sparkline of the values."""

    return write_text(trend_document(trend))


def render_markdown(trend: Trend) -> str:
    """A Markdown table: one row per run, with its change from the previous run."""

    return write_markdown(trend_document(trend))


def render_json(trend: Trend) -> str:
    """The trend model as indented JSON (docs/trend.schema.json)."""
    return json.dumps(trend.model_dump(mode="json"), indent=2) + "\n"
