"""A trend as one self-contained HTML page: the series drawn with interval bands and
markers where the dataset or the configuration changed, then one row per run."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from assay.render.html import environment, safe_url
from assay.render.trend import amount_text, change_text, sparkline, trend_heading
from assay.trend import Point, Trend

_WIDTH, _HEIGHT = 880, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 24, 20, 40


def _scale(trend: Trend) -> tuple[float, float]:
    """The value range the chart shows: every value and bound, padded; rates within 0-1."""
    seen = [v for p in trend.points for v in (p.value, p.low, p.high) if v is not None]
    if not seen:
        return 0.0, 1.0
    low, high = min(seen), max(seen)
    pad = (high - low) * 0.1 or (0.05 if trend.kind == "rate" else max(abs(high) * 0.1, 0.01))
    low, high = low - pad, high + pad
    if trend.kind == "rate":
        low, high = max(0.0, low), min(1.0, high)
    elif low < 0 <= min(seen):
        low = 0.0
    return low, high


def _label(trend: Trend, value: float) -> str:
    if trend.kind == "rate":
        return f"{value * 100:.1f}%"
    if trend.kind == "usd":
        return f"${value:.4f}"
    return f"{value:.3f} s"


def _segments(points: list[Point]) -> list[list[int]]:
    """Runs of consecutive indexes with a value, cut where a run was not paired."""
    out: list[list[int]] = []
    for i, p in enumerate(points):
        cut = p.value is None or (p.change is not None and not p.change.paired)
        if not out or cut or points[i - 1].value is None:
            out.append([])
        if p.value is not None:
            out[-1].append(i)
    return [s for s in out if s]


def chart(trend: Trend) -> dict[str, Any]:
    """Coordinates of the series: points, interval bands, lines, markers and the axis."""
    n = len(trend.points)
    low, high = _scale(trend)
    inner_w, inner_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def x(i: int) -> float:
        return round(_LEFT + (inner_w / 2 if n == 1 else inner_w * i / (n - 1)), 2)

    def y(v: float) -> float:
        span = (high - low) or 1.0
        return round(_TOP + inner_h * (1 - (v - low) / span), 2)

    points, bands, lines, markers = [], [], [], []
    for i, p in enumerate(trend.points):
        if p.value is not None:
            points.append(
                {
                    "x": x(i),
                    "y": y(p.value),
                    "run": p.run_id,
                    "value": repr(p.value),
                    "flagged": p.change is not None and p.change.flagged,
                    "title": f"{p.run_id}: {p.shown}",
                }
            )
        if p.change is not None and not p.change.paired:
            markers.append({"x": round((x(i - 1) + x(i)) / 2, 2), "label": "dataset"})
        elif p.change is not None and p.change.config_changed:
            markers.append({"x": round((x(i - 1) + x(i)) / 2, 2), "label": "config"})
    for segment in _segments(trend.points):
        lines.append(" ".join(f"{x(i)},{y(trend.points[i].value or 0)}" for i in segment))
        bounded = [i for i in segment if trend.points[i].low is not None]
        if bounded:
            top = [f"{x(i)},{y(trend.points[i].high or 0)}" for i in bounded]
            bottom = [f"{x(i)},{y(trend.points[i].low or 0)}" for i in reversed(bounded)]
            bands.append(" ".join(top + bottom))
    ticks = [low + (high - low) * k / 4 for k in range(5)]
    return {
        "width": _WIDTH,
        "height": _HEIGHT,
        "left": _LEFT,
        "right": _WIDTH - _RIGHT,
        "top": _TOP,
        "bottom": _HEIGHT - _BOTTOM,
        "points": points,
        "bands": bands,
        "lines": lines,
        "markers": markers,
        "ticks": [{"y": y(t), "label": _label(trend, t)} for t in ticks],
    }


def _links(p: Point, viewer: str | None, in_viewer: bool) -> dict[str, Any]:
    base = "" if in_viewer else (viewer or "").rstrip("/")
    linked = in_viewer or bool(viewer)
    run_url = f"{base}/runs/{quote(p.run_id, safe='')}" if linked else None
    compare_url = None
    compare_cmd = None
    if p.change is not None:
        prev = p.change.previous
        compare_cmd = f"assay compare {prev} {p.run_id}"
        if linked:
            compare_url = (
                f"{base}/compare?baseline={quote(prev, safe='')}&candidate="
                f"{quote(p.run_id, safe='')}"
            )
    return {
        "run_url": safe_url(run_url) if run_url else None,
        "run_cmd": f"assay report {p.run_id}",
        "compare_url": safe_url(compare_url) if compare_url else None,
        "compare_cmd": compare_cmd,
    }


def render_trend_html(
    trend: Trend,
    *,
    viewer: str | None = None,
    in_viewer: bool = False,
    links: dict[str, str] | None = None,
) -> str:
    """The page: no script, no request; links to each run's report and to each comparison
    of consecutive runs point at the viewer (``viewer``'s URL, or the viewer itself when
    ``in_viewer``), else name the command that shows them."""
    rows = []
    for p in trend.points:
        change = p.change
        rows.append(
            {
                "p": p,
                "when": p.started_at[:16].replace("T", " "),
                "value": "" if p.value is None else repr(p.value),
                "low": "" if p.low is None else repr(p.low),
                "high": "" if p.high is None else repr(p.high),
                "change": change_text(p),
                "state": "first"
                if change is None
                else "flagged"
                if change.flagged
                else "paired"
                if change.paired
                else "break",
                "p_value": "" if change is None or change.p_value is None else repr(change.p_value),
                **_links(p, viewer, in_viewer),
            }
        )
    return (
        environment()
        .get_template("trend.html.j2")
        .render(
            t=trend,
            title=f"assay trend · {trend.suite} · {trend.metric}",
            heading=trend_heading(trend),
            spark=sparkline([p.value for p in trend.points]),
            chart=chart(trend),
            rows=rows,
            links={k: safe_url(v) for k, v in (links or {}).items()},
            groups=[
                {
                    "dataset_version": g.dataset_version,
                    "config_hash": g.config_hash,
                    "runs": g.runs,
                    "low_text": "n/a" if g.low is None else _label(trend, g.low),
                    "high_text": "n/a" if g.high is None else _label(trend, g.high),
                    "spread_value": "" if g.spread is None else repr(g.spread),
                    "spread_text": "n/a" if g.spread is None else amount_text(trend, g.spread),
                }
                for g in trend.groups
            ],
        )
    )
