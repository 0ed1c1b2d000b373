"""The composite report as GitHub-flavoured Markdown."""

from __future__ import annotations

from assay.report._composite import CompositeReport
from assay.report.render import _composite_format as cf
from assay.report.render import _format as f
from assay.report.render._lists import LIST_ROWS, more_note


def render_composite_markdown(report: CompositeReport) -> str:
    """Profile, per-case table, pass rates, check failures, divergence, synthetic section."""
    d = report.dataset
    lines = [
        f"## assay composite: {f.cell(d.name)}",
        "",
        f"Dataset {f.code(d.name)} version {f.code(d.version)}, {d.cases} real cases; "
        f"input: {f.cell(report.input)}; assay {report.assay_version}.",
        "",
        f"{f.cell(cf.profile_line(report))}; {f.cell(cf.weights_line(report))}.",
        "",
        "| Case | Status | Score | Critical failures | Composite | Strict | Failed checks |",
        "|---|---|---:|---|---|---|---|",
    ]
    real = [r for r in report.cases if not r.synthetic]
    for r in real[:LIST_ROWS]:
        lines.append(
            f"| {f.cell(r.label)} | {r.status} | {cf.score(r.score)} | {cf.critical(r)} "
            f"| {r.verdict} | {r.strict_verdict} | {f.cell(cf.failed_checks(r))} |"
        )
    if len(real) > LIST_ROWS:
        lines.append(f"| {more_note(len(real))} |  |  |  |  |  |  |")
    lines += ["", *f.rates_table(cf.headline(report), f.ci_label(report.composite_pass))]
    lines += [
        "",
        f"**Statuses:** {f.status_sum(report.statuses, report.total, cf.unit(report))}",
        "",
        "| Check | Weight | Critical | Failed | Not evaluated |",
        "|---|---:|---|---:|---:|",
    ]
    for name, c in report.check_failures.items():
        crit = "yes" if c.critical else ""
        lines.append(f"| {f.cell(name)} | {c.weight:g} | {crit} | {c.failed} | {c.not_evaluated} |")
    lines += ["", f"**{f.cell(cf.divergence(report))}**"]
    not_passed = [r for r in real if r.verdict != "pass" or r.strict_verdict != "pass"]
    if not_passed:
        lines += ["", "| Case | Question | Answer | Reason |", "|---|---|---|---|"]
        lines += [
            f"| {f.cell(r.label)} | {f.cell(cf.clip(r.question))} | {f.cell(cf.clip(r.answer))} "
            f"| {f.cell(r.reason)} |"
            for r in not_passed[:LIST_ROWS]
        ]
        if len(not_passed) > LIST_ROWS:
            lines.append(f"| {more_note(len(not_passed))} |  |  |  |")
    if report.synthetic is not None:
        s = report.synthetic
        lines += [
            "",
            f"### {f.cell(s.banner)}",
            "",
            f"{len(s.case_ids)} synthetic case(s), never counted above: composite "
            f"{f.fraction(s.composite_pass)}, strict {f.fraction(s.strict_pass)} passed.",
            "",
            "| Case | Provenance | Score | Composite | Strict | Reason |",
            "|---|---|---:|---|---|---|",
        ]
        for r in report.cases:
            if r.synthetic:
                lines.append(
                    f"| {f.cell(r.label)} | {f.cell(cf.provenance(r))} | {cf.score(r.score)} "
                    f"| {r.verdict} | {r.strict_verdict} | {f.cell(r.reason)} |"
                )
    return "\n".join(lines) + "\n"
