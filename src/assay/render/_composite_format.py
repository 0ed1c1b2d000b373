"""Shared wording for composite reports, so the text and Markdown formats agree."""

from __future__ import annotations

from assay.metrics import Rate
from assay.report import CompositeCaseRow, CompositeReport


def score(value: float | None) -> str:
    """'0.95' (two decimals unless the score needs more), '—' when there is no score."""
    if value is None:
        return "—"
    short = f"{value:.2f}"
    return short if float(short) == value else repr(value)


def failed_checks(row: CompositeCaseRow) -> str:
    failed = [n for n, r in row.checks.items() if r.passed is False]
    unknown = [f"{n}?" for n, r in row.checks.items() if r.passed is None]
    return ", ".join(failed + unknown) or "—"


def critical(row: CompositeCaseRow) -> str:
    return ", ".join(row.critical_failures) or "—"


def headline(report: CompositeReport) -> list[tuple[str, Rate]]:
    return [("Composite pass", report.composite_pass), ("Strict pass", report.strict_pass)]


def profile_line(report: CompositeReport) -> str:
    p = report.profile
    crit = ", ".join(p.critical) or "none"
    return f"profile {p.name}: threshold {p.threshold} · critical: {crit}"


def weights_line(report: CompositeReport) -> str:
    return "weights: " + " · ".join(f"{n} {w:g}" for n, w in report.profile.weights.items())


def unit(report: CompositeReport) -> str:
    return "case-trials" if report.trials > 1 else "cases"


def divergence(report: CompositeReport) -> str:
    """The sentence about the composite and strict verdicts on real cases."""
    if report.agreement:
        return report.agreement
    if not report.diverging:
        return "no real cases to compare"
    return (
        f"composite and strict verdicts differ on {len(report.diverging)} of {report.total} "
        f"real {unit(report)}: {', '.join(report.diverging)}"
    )


def provenance(row: CompositeCaseRow) -> str:
    p = row.provenance or {}
    if not p:
        return "—"
    check = f", {p['check']} flipped" if p.get("check") else ""
    return f"from {p.get('source_case')} ({p.get('method')}{check})"


CLIP = 80


def clip(text: str | None, limit: int = CLIP) -> str:
    """``text`` on one line, cut at ``limit`` characters with the cut shown ('… +120
    chars'); '–' when there is none. The JSON and HTML reports carry the full text."""
    if text is None:
        return "–"
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit].rstrip()}… (+{len(flat) - limit} chars)"
