"""Shared wording for rates and counts, so every format says the same thing."""

from __future__ import annotations

from assay.metrics import Rate, StatusCounts
from assay.report._model import Report


def pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def fraction(r: Rate) -> str:
    return f"{r.numerator}/{r.denominator}"


def value(r: Rate) -> str:
    """'33.3%', or 'n/a (no substantive answers)' when the denominator is 0."""
    return pct(r.value) if r.value is not None else f"n/a ({r.na_reason})"


def ci(r: Rate) -> str:
    """'[0.8%, 90.6%]', or '—' when the rate is unavailable."""
    if r.ci95 is None:
        return "—"
    return f"[{pct(r.ci95[0])}, {pct(r.ci95[1])}]"


def ci_label(r: Rate, clustered: bool = False) -> str:
    level = f"{r.confidence * 100:g}%"
    method = "exact" if r.method == "clopper-pearson" else r.method.title()
    return f"{level} CI ({method}{', clustered by case' if clustered else ''})"


def named(r: Rate) -> str:
    """'passing answers / substantive answers'."""
    return (
        f"{r.numerator_name} / {r.denominator_name}"
        if r.numerator_name
        else (f"/ {r.denominator_name}")
    )


def headline(report: Report) -> list[tuple[str, Rate]]:
    per = " (per trial)" if report.trial_summary is not None else ""
    return [
        ("Task success" + per, report.task_success),
        ("Answer coverage" + per, report.answer_coverage),
        ("Answered accuracy" + per, report.answered_accuracy),
    ]


def status_sum(counts: StatusCounts, total: int, unit: str = "cases") -> str:
    """'passed 2 + failed 3 + error 1 + missing 0 + ungraded 0 = 6 cases (adds up)'."""
    parts = " + ".join(
        f"{name} {getattr(counts, name)}"
        for name in ("passed", "failed", "error", "missing", "ungraded")
    )
    verdict = "adds up" if counts.total == total else f"DOES NOT ADD UP to {total}"
    return f"{parts} = {counts.total} {unit} ({verdict})"


def unit(report: Report) -> str:
    return "case-trials" if report.trials > 1 else "cases"


def cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell: pipes escaped, newlines as spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def rates_table(rows: list[tuple[str, Rate]], ci_heading: str) -> list[str]:
    """A Markdown table of rates: fraction, value, interval and the named denominator."""
    lines = [
        f"| Metric | Fraction | Value | {ci_heading} | Denominator |",
        "|---|---:|---:|---|---|",
    ]
    for label, r in rows:
        lines.append(f"| {label} | {fraction(r)} | {value(r)} | {ci(r)} | {cell(named(r))} |")
    return lines


def cache_line(report: Report) -> str | None:
    """'Cache: 12 of 12 case-trials served from the cache (key version 1) …', or None when
    the run used no cache."""
    c = report.cache
    if c is None:
        return None
    version = f"key version {c.key_version}" if c.key_version is not None else "key version n/a"
    line = (
        f"Cache: {c.served} of {c.case_trials} recorded case-trials served from the cache "
        f"({version}); {c.called} called the target"
    )
    if c.input_tokens_avoided or c.output_tokens_avoided:
        line += (
            f"; tokens avoided: {c.input_tokens_avoided} input, "
            f"{c.output_tokens_avoided} output (not counted again)"
        )
    return line


def short_version(version: str) -> str:
    return version[:19] if version.startswith("sha256:") else version
