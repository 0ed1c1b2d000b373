"""The report for a terminal, drawn with rich; returned as a string."""

from __future__ import annotations

import io

from rich.table import Table
from rich.text import Text

from assay.report._imported import imported_line
from assay.report._model import CaseRow, Report
from assay.report.render import _format as f
from assay.report.render._tables import figures_table
from assay.report.render._terminal import SafeConsole, escape_controls
from assay.report.render._trials import trial_lines, trial_sections

STATUS_STYLE = {
    "passed": "green",
    "failed": "red",
    "error": "magenta",
    "missing": "yellow",
    "ungraded": "cyan",
}


def render_text(report: Report, *, color: bool = False, width: int = 120) -> str:
    """Headline rates, the status sum, slices and the non-passing cases."""
    buffer = io.StringIO()
    console = SafeConsole(
        file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False
    )
    d = report.dataset
    head = f"assay report · dataset {d.name} ({f.short_version(d.version)}…) · {d.cases} cases"
    if f.title_name(report) != d.name:
        head = f"assay report · {f.title_name(report)} · " + head.removeprefix("assay report · ")
    if report.trials > 1:
        head += f" × {report.trials} trials"
    if report.run_id:
        head += f" · run {report.run_id}"
    console.print(Text(head, style="bold"))
    if report.graders:
        graders = ", ".join(f"{g.name} v{g.version}" for g in report.graders)
        console.print(f"graders: {graders} · assay {report.assay_version}")
    imported = imported_line(report.metadata)
    if imported is not None:
        console.print(imported, markup=False, soft_wrap=True)
    change = f.change_line(report)
    if change is not None:
        console.print(change, markup=False)
    console.print()

    rates = figures_table(
        [
            "Metric",
            "Fraction",
            "Value",
            f.ci_label(report.task_success, report.trial_summary is not None),
            "Denominator",
        ],
        [
            [label, f.fraction(r), f.value(r), f.ci(r), f.named(r)]
            for label, r in f.headline(report) + f.dimensions(report)
        ],
        numeric=(1, 2, 3),
        right=(1,),
    )
    console.print(rates)
    console.print()
    console.print(
        "Statuses: " + f.status_sum(report.statuses, report.total, f.unit(report)),
    )
    console.print()
    heldout = f.heldout_line(report)
    if heldout is not None:
        console.print(Text(heldout, style="bold yellow"))
        console.print()
    if report.splits:
        by_split = Table(
            title="By split (each with its own denominators)",
            title_justify="left",
            box=None,
            pad_edge=False,
            header_style="bold",
        )
        for col in ("Metric", "Fraction", "Value", "Interval", "Denominator"):
            by_split.add_column(col, justify="right" if col == "Fraction" else "left")
        for label, r in f.split_rows(report):
            by_split.add_row(label, f.fraction(r), f.value(r), f.ci(r), f.named(r))
        console.print(by_split)
        for block in report.splits:
            console.print(
                f"{block.split} statuses: "
                + f.status_sum(block.statuses, block.total, f.unit(report)),
                markup=False,
            )
    usage = f.usage_lines(report.usage, report.judge_usage)
    if usage:
        console.print(Text("Usage", style="bold"))
        for line in usage:
            console.print(line, markup=False)
    cached = f.cache_line(report)
    if cached is not None:
        console.print(cached, markup=False)
        console.print()
    if report.trial_summary is not None:
        for line in trial_lines(report):
            console.print(line, markup=False)
        console.print()

    slices = figures_table(
        ("Slice", "Passed", "Value", "Interval", "Failed", "Error", "Missing", "Ungraded"),
        [
            [
                name,
                f.fraction(sl.task_success),
                f.value(sl.task_success),
                f.ci(sl.task_success),
                str(sl.statuses.failed),
                str(sl.statuses.error),
                str(sl.statuses.missing),
                str(sl.statuses.ungraded),
            ]
            for name, sl in report.slices.items()
        ],
        numeric=range(1, 8),
        right=(1, 2, 4, 5, 6, 7),
        title="Slices" + (" (per trial)" if report.trial_summary is not None else ""),
    )
    console.print(slices)
    for title, cols, rows in trial_sections(report):
        numbers = [i for i, col in enumerate(cols) if col not in ("Case", "Slice", "")]
        table = figures_table(cols, rows, numeric=numbers, title=title, pad_edge=True)
        console.print()
        console.print(table)

    not_passed = [c for c in report.cases if not c.synthetic and c.status != "passed"]
    long_list: list[str] = []
    if len(not_passed) > TABLE_ROWS:
        long_list = _grouped("Cases not passed", not_passed, report.trials, width)
        not_passed = []
    if not_passed:
        console.print()
        cases = figures_table(
            ("Case", "Slice", "Status", "Reason"),
            [
                [
                    f.case_label(c, report.trials),
                    c.slice,
                    Text(c.status, style=STATUS_STYLE[c.status]),
                    f.reason_with_raw(c),
                ]
                for c in not_passed
            ],
            numeric=(2,),
            title="Cases not passed",
        )
        console.print(cases)

    if report.synthetic is not None:
        s = report.synthetic
        fake = [c for c in report.cases if c.synthetic]
        several = any(c.trial > 1 for c in fake)
        body = figures_table(
            ("Case", "Slice", "Status", "Reason"),
            [
                [
                    f"{c.id} #{c.trial}" if several else c.id,
                    c.slice,
                    Text(c.status, style=STATUS_STYLE[c.status]),
                    c.reason,
                ]
                for c in fake
            ],
            numeric=(2,),
            title=f"{s.banner}: {f.fraction(s.task_success)} passed, never counted above",
            title_style="bold yellow",
        )
        console.print()
        console.print(body)
    # rich pads every table row to the table's width; trailing blanks only get in the way.
    text = "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())
    return text + "".join(line + "\n" for line in long_list)


TABLE_ROWS = 100
"""Longest list of cases drawn as a table; a longer one is grouped by status and reason."""


def _grouped(title: str, cases: list[CaseRow], trials: int, width: int) -> list[str]:
    """Every case of a long list, named once, grouped by status and reason: a summary a
    reader can take in, that still lists each case (a table of thousands of rows is not
    read, and takes rich seconds to draw)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for c in cases:
        label = f.case_label(c, trials)
        groups.setdefault((c.status, c.reason), []).append(label)
    lines = ["", f"{title}: {len(cases):,}, grouped by status and reason"]
    for (status, reason), labels in sorted(groups.items(), key=lambda g: -len(g[1])):
        lines.append(escape_controls(f"{status} ({len(labels):,}): {reason}"))
        line = "   "
        for label in labels:
            item = escape_controls(label)
            if len(line) + len(item) + 2 > width and line.strip():
                lines.append(line.rstrip())
                line = "   "
            line += f" {item},"
        lines.append(line.rstrip(","))
    return lines
