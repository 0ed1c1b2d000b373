"""Gate results in words: a terminal summary and a Markdown summary for CI job pages."""

from __future__ import annotations

from collections.abc import Sequence

from assay.report._gates import GateResult, gates_passed
from assay.report._model import Report
from assay.report.render import _format as f


def _verdict(results: Sequence[GateResult]) -> str:
    failed = sum(1 for r in results if not r.passed)
    if not results:
        return "no gate rules given"
    if failed:
        return f"GATE FAILED: {failed} of {len(results)} rule(s) failed"
    return f"gate passed: all {len(results)} rule(s) hold"


def render_gates_text(results: Sequence[GateResult]) -> str:
    """One line per rule (PASS or FAIL, the value seen and by how much), then the verdict."""
    lines = [f"{'PASS' if r.passed else 'FAIL'}  {r.rule.text:<40}  {r.message}" for r in results]
    lines.append(_verdict(results))
    return "\n".join(lines) + "\n"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_gates_markdown(report: Report, results: Sequence[GateResult]) -> str:
    """The gate verdict, a table of rules, the headline rates and the status sum."""
    d = report.dataset
    icon = "✅" if gates_passed(results) else "❌"
    lines = [
        f"## {icon} assay gate: {_cell(d.name)}",
        "",
        f"**{_verdict(results)}** · dataset `{d.name}` `{f.short_version(d.version)}`"
        + (f" · run `{report.run_id}`" if report.run_id else "")
        + f" · assay {report.assay_version}",
        "",
    ]
    if results:
        lines += ["| Rule | Result | Detail |", "|---|---|---|"]
        for r in results:
            lines.append(
                f"| `{_cell(r.rule.text)}` | {'pass' if r.passed else '**FAIL**'} "
                f"| {_cell(r.message)} |"
            )
        lines.append("")
    lines += [
        f"| Metric | Fraction | Value | {f.ci_label(report.task_success)} | Denominator |",
        "|---|---:|---:|---|---|",
    ]
    for label, rate in f.headline(report):
        lines.append(
            f"| {label} | {f.fraction(rate)} | {f.value(rate)} | {f.ci(rate)} "
            f"| {_cell(f.named(rate))} |"
        )
    lines += ["", f"**Statuses:** {f.status_sum(report.statuses, report.total, f.unit(report))}"]
    return "\n".join(lines) + "\n"
