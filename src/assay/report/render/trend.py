"""A trend as text (with a sparkline), Markdown or JSON."""

from __future__ import annotations

import json

from assay.formats import formats
from assay.report.render import _format as f
from assay.trend._model import Point, Trend

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


def _change_text(point: Point) -> str:
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


def _heading(trend: Trend) -> str:
    level = f"{trend.confidence * 100:g}%"
    named = f" over {trend.denominator_name}" if trend.denominator_name else ""
    return f"{trend.suite} · {trend.metric}{named} · {level} intervals ({trend.method})"


def render_text(trend: Trend) -> str:
    """Rows of runs, oldest first, under a sparkline of the values."""
    lines = [f"assay trend · {_heading(trend)}"]
    if trend.since:
        lines.append(f"since {trend.since[:19].replace('T', ' ')} UTC")
    if not trend.points:
        lines.append(trend.summary)
        return "\n".join(lines) + "\n"
    values = [p.value for p in trend.points]
    marks = "".join(_marker(p) or " " for p in trend.points)
    lines.append(f"  {sparkline(values)}   oldest → newest")
    if marks.strip():
        lines.append(f"  {marks}   | not paired with the previous run, ! changed beyond noise")
    lines.append("")
    for p in trend.points:
        tags = f" [{', '.join(p.tags)}]" if p.tags else ""
        commit = (p.git_commit or "-")[:10]
        lines.append(
            f"{_marker(p) or ' '} {_when(p)}  {p.run_id}{tags}  {p.status}  "
            f"dataset {f.short_version(p.dataset_version)}  config "
            f"{f.short_version(p.config_hash)}  commit {commit}"
        )
        replicas = f"  ({p.replicates} runs of this configuration)" if p.replicates > 1 else ""
        lines.append(f"    {trend.metric} {p.shown}{replicas}")
        lines.append(f"    {_change_text(p)}")
    for g in trend.groups:
        spread = "n/a" if g.spread is None else _amount(trend, g.spread)
        lines.append(
            f"noise: {len(g.runs)} runs of config {f.short_version(g.config_hash)} on dataset "
            f"{f.short_version(g.dataset_version)} spread {spread}"
        )
    lines.append("")
    lines.append(trend.summary)
    return "\n".join(lines) + "\n"


def _amount(trend: Trend, value: float) -> str:
    if trend.kind == "rate":
        return f"{value * 100:.1f} pts"
    if trend.kind == "usd":
        return f"${value:.4f}"
    return f"{value:.3f} s"


def render_markdown(trend: Trend) -> str:
    """A Markdown table: one row per run, with its change from the previous run."""
    lines = [f"## assay trend: {f.cell(_heading(trend))}", ""]
    if trend.since:
        lines += [f"Since {trend.since[:19].replace('T', ' ')} UTC.", ""]
    lines += [f"`{sparkline([p.value for p in trend.points])}`", ""]
    lines += [
        "| Started (UTC) | Run | Status | Dataset | Config | Commit | Value | Change |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in trend.points:
        tags = f" ({', '.join(p.tags)})" if p.tags else ""
        flagged = p.change is not None and p.change.flagged
        change = f"**{f.cell(_change_text(p))}**" if flagged else f.cell(_change_text(p))
        lines.append(
            f"| {_when(p)} | `{p.run_id}`{f.cell(tags)} | {p.status} | "
            f"{f.short_version(p.dataset_version)} | {f.short_version(p.config_hash)} | "
            f"{f.cell((p.git_commit or '-')[:10])} | {f.cell(p.shown)} | "
            f"{change} |"
        )
    lines += ["", f"**{f.cell(trend.summary)}**", "", f"_{trend.rule}_", ""]
    return "\n".join(lines)


def render_json(trend: Trend) -> str:
    """The trend model as indented JSON (docs/trend.schema.json)."""
    return json.dumps(trend.model_dump(mode="json"), indent=2) + "\n"
