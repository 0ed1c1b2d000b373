"""The report as GitHub-flavoured Markdown, for CI summaries and pull requests."""

from __future__ import annotations

from assay.report._imported import imported_line
from assay.report._model import Report
from assay.report.render import _format as f
from assay.report.render._trials import trial_lines, trial_sections


def render_markdown(report: Report) -> str:
    """Headline rates with named denominators and intervals, status counts, slices, cases."""
    d = report.dataset
    ci_label = f.ci_label(report.task_success, report.trial_summary is not None)
    lines = [
        f"## assay report: {f.cell(f.title_name(report))}",
        "",
        f"Dataset {f.code(d.name)} version {f.code(d.version)}, {d.cases} real cases"
        + (f", {report.trials} trials per case" if report.trials > 1 else "")
        + (f", run {f.code(report.run_id)}" if report.run_id else "")
        + f"; assay {report.assay_version}.",
        "",
        *([f.cell(line), ""] if (line := imported_line(report.metadata)) else []),
        *([f"*{f.cell(f.change_line(report))}*", ""] if report.dataset.change else []),
        *f.rates_table(f.headline(report) + f.dimensions(report), ci_label),
    ]
    lines += [
        "",
        f"**Statuses:** {f.status_sum(report.statuses, report.total, f.unit(report))}",
        "",
    ]
    heldout = f.heldout_line(report)
    if heldout is not None:
        lines += [f"**{heldout}**", ""]
    if report.splits:
        lines += ["**By split** (each with its own denominators)", ""]
        lines += f.rates_table(f.split_rows(report), ci_label)
        lines += [""]
        for block in report.splits:
            added = f.status_sum(block.statuses, block.total, f.unit(report))
            lines += [f"- {block.split} statuses: {added}"]
        lines += [""]
    usage = f.usage_lines(report.usage, report.judge_usage)
    if usage:
        lines += ["**Usage**", "", *(f"- {f.cell(line)}" for line in usage), ""]
    cached = f.cache_line(report)
    if cached is not None:
        lines += [f"**{cached.replace(':', ':**', 1)}", ""]
    lines += [
        "| Slice | Passed | Value | Interval | Failed | Error | Missing | Ungraded |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for name, sl in report.slices.items():
        counts = sl.statuses
        lines.append(
            f"| {f.cell(name)} | {f.fraction(sl.task_success)} | {f.value(sl.task_success)} "
            f"| {f.ci(sl.task_success)} | {counts.failed} | {counts.error} | {counts.missing} "
            f"| {counts.ungraded} |"
        )
    if report.trial_summary is not None:
        lines += ["", *(f"- {line}" for line in trial_lines(report))]
        for title, head, rows in trial_sections(report):
            lines += ["", f"**{f.cell(title)}**", "", "| " + " | ".join(map(f.cell, head)) + " |"]
            lines += ["|" + "---|" * len(head)]
            lines += ["| " + " | ".join(f.cell(v) for v in row) + " |" for row in rows]
    real = [c for c in report.cases if not c.synthetic and c.status != "passed"]
    if real:
        lines += [
            "",
            "**Cases not passed**",
            "",
            "| Case | Slice | Status | Reason |",
            "|---|---|---|---|",
        ]
        for c in real:
            case = f.case_label(c, report.trials)
            lines.append(
                f"| {f.cell(case)} | {f.cell(c.slice)} | {c.status} "
                f"| {f.cell(f.reason_with_raw(c))} |"
            )
    if report.synthetic is not None:
        s = report.synthetic
        lines += [
            "",
            f"### {f.cell(s.banner)}",
            "",
            f"{len(s.case_ids)} synthetic case(s), never counted above: "
            f"{f.fraction(s.task_success)} passed ({f.value(s.task_success)}).",
            "",
            "| Case | Status | Reason |",
            "|---|---|---|",
        ]
        for c in report.cases:
            if c.synthetic:
                lines.append(f"| {f.cell(c.id)} | {c.status} | {f.cell(c.reason)} |")
    return "\n".join(lines) + "\n"
