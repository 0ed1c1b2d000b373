"""A comparison as one self-contained HTML page: what changed first, then slices and the test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import assay.render._format as f
from assay.compare import divergence_text, p_text
from assay.render.comparison import USAGE_HEAD, delta_text, usage_rows
from assay.render.html import environment, rate_view, safe_url

if TYPE_CHECKING:
    from assay.compare import ChangedCase, Comparison, SideOutcome, SliceDelta

_WIDTH = 880
_LEFT = 160
_RIGHT = 250


def _outcome(side: SideOutcome) -> str:
    if side.outcome is None:
        return "none recorded"
    return side.outcome + (f" {side.fact}" if side.fact else "")


def _changed(items: list[ChangedCase], trials: int, reason_from: str) -> list[dict[str, Any]]:
    return [
        {
            "id": x.id if trials == 1 else f"{x.id} #{x.trial}",
            "case_id": x.id,
            "slice": x.slice,
            "baseline": (x.baseline.status, _outcome(x.baseline)),
            "candidate": (x.candidate.status, _outcome(x.candidate)),
            "reason": getattr(x, reason_from).reason,
            "parted": divergence_text(x.divergence) if x.divergence is not None else None,
        }
        for x in items
    ]


def pairing_note(c: Comparison, unit: str) -> str:
    """What was compared and what was left out of the comparison, and why, in one sentence."""
    if not c.excluded:
        return f"Every case paired: {c.paired} {unit} compared, none left out."
    reasons: dict[str, set[str]] = {}
    for e in c.excluded:
        kind = e.reason.split(":")[0].split(" (")[0].strip()
        reasons.setdefault(kind, set()).add(e.id)
    left_out = len({e.id for e in c.excluded})
    why = "; ".join(f"{len(ids)} {kind}" for kind, ids in sorted(reasons.items()))
    return (
        f"{c.paired} {unit} paired. {left_out} case{'s' if left_out != 1 else ''} left out "
        f"and counted on neither side ({why})."
    )


def disagreement(c: Comparison) -> str | None:
    """A warning when the delta's interval and the paired test point different ways (one
    excludes no change, the other does not), else None."""
    d, test = c.task_success_delta, c.mcnemar
    if d.ci is None:
        return None
    alpha = 1 - d.confidence
    interval_says = d.ci[0] > 0 or d.ci[1] < 0
    if interval_says == (test.p_value < alpha):
        return None
    level = f"{d.confidence * 100:g}%"
    return (
        f"The {level} interval of the delta {'excludes' if interval_says else 'includes'} 0 "
        f"while the exact test's p = {p_text(test.p_value, alpha)} is "
        f"{'above' if interval_says else 'below'} {alpha:g}: the two methods disagree at "
        "these counts (the exact test is the more conservative). Treat the change as "
        "uncertain and add cases before relying on it."
    )


def _x(value: float) -> float:
    """Position of a delta in [-1, 1] on the chart."""
    return round(_LEFT + (value + 1) / 2 * (_WIDTH - _LEFT - _RIGHT), 2)


def delta_chart(c: Comparison) -> dict[str, Any]:
    """Geometry of the per-slice delta chart: a dot per slice, whiskers over its interval."""
    rows = []
    for i, s in enumerate(c.slices):
        y = 28 + i * 30
        row: dict[str, Any] = {"name": s.slice, "y": y, "label": delta_text(s.delta)}
        if s.delta.value is not None and s.delta.ci is not None:
            row |= {"x": _x(s.delta.value), "lo": _x(s.delta.ci[0]), "hi": _x(s.delta.ci[1])}
        rows.append(row)
    ticks = [
        {"x": _x(t / 100), "label": f"{t:+d} pp" if t else "0"} for t in (-100, -50, 0, 50, 100)
    ]
    return {
        "rows": rows,
        "ticks": ticks,
        "width": _WIDTH,
        "height": 28 + len(rows) * 30,
        "zero": _x(0.0),
        "track_end": _x(1.0),
        "label_x": _x(1.0) + 10,
    }


def _slice_row(s: SliceDelta) -> tuple[SliceDelta, str, str, str, str, str]:
    b, c = s.baseline, s.candidate
    return (s, f.fraction(b), f.value(b), f.fraction(c), f.value(c), delta_text(s.delta))


def render_compare_html(comparison: Comparison, *, links: Mapping[str, str] | None = None) -> str:
    """``comparison`` as a self-contained HTML page (``assay compare --format html``)."""
    c = comparison
    trials = max(c.baseline.trials, c.candidate.trials)
    template = environment().get_template("compare.html.j2")
    return template.render(
        c=c,
        title=f"assay compare · {c.baseline.ref} → {c.candidate.ref}",
        unit="case-trials" if trials > 1 else "cases",
        baseline=rate_view("Baseline", "baseline", c.baseline.task_success),
        candidate=rate_view("Candidate", "candidate", c.candidate.task_success),
        delta=delta_text(c.task_success_delta),
        p_value=p_text(c.mcnemar.p_value, 1 - c.task_success_delta.confidence),
        fixed=_changed(c.fixed, trials, "candidate"),
        broken=_changed(c.broken, trials, "candidate"),
        slices=[_slice_row(s) for s in c.slices],
        chart=delta_chart(c),
        unchanged=sorted(c.unchanged.items()),
        pairing=pairing_note(c, "case-trials" if trials > 1 else "cases"),
        disagreement=disagreement(c),
        moved_in=sum(1 for m in c.moved if m.to == "passed"),
        moved_out=sum(1 for m in c.moved if m.from_ == "passed"),
        links={label: safe_url(url) for label, url in (links or {}).items()},
        usage_head=USAGE_HEAD,
        usage_rows=usage_rows(c) if c.usage is not None else [],
    )
