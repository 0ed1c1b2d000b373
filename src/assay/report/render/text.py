"""The report for a terminal, drawn with rich; returned as a string."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assay.report._model import Report
from assay.report.render import _format as f
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
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False
    )
    d = report.dataset
    head = f"assay report · dataset {d.name} ({f.short_version(d.version)}…) · {d.cases} cases"
    if report.trials > 1:
        head += f" × {report.trials} trials"
    if report.run_id:
        head += f" · run {report.run_id}"
    console.print(Text(head, style="bold"))
    if report.graders:
        graders = ", ".join(f"{g.name} v{g.version}" for g in report.graders)
        console.print(f"graders: {graders} · assay {report.assay_version}")
    console.print()

    rates = Table(box=None, pad_edge=False, header_style="bold")
    for col, justify in [
        ("Metric", "left"),
        ("Fraction", "right"),
        ("Value", "left"),
        (f.ci_label(report.task_success, report.trial_summary is not None), "left"),
        ("Denominator", "left"),
    ]:
        rates.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for label, r in f.headline(report):
        rates.add_row(label, f.fraction(r), f.value(r), f.ci(r), f.named(r))
    console.print(rates)
    console.print()
    console.print(
        "Statuses: " + f.status_sum(report.statuses, report.total, f.unit(report)),
    )
    console.print()
    cached = f.cache_line(report)
    if cached is not None:
        console.print(cached, markup=False)
        console.print()
    if report.trial_summary is not None:
        for line in trial_lines(report):
            console.print(line, markup=False)
        console.print()

    slices = Table(
        title="Slices" + (" (per trial)" if report.trial_summary is not None else ""),
        title_justify="left",
        box=None,
        pad_edge=False,
        header_style="bold",
    )
    for col in ("Slice", "Passed", "Value", "Interval", "Failed", "Error", "Missing", "Ungraded"):
        slices.add_column(col, justify="left" if col in ("Slice", "Interval") else "right")
    for name, sl in report.slices.items():
        counts = sl.statuses
        slices.add_row(
            name,
            f.fraction(sl.task_success),
            f.value(sl.task_success),
            f.ci(sl.task_success),
            str(counts.failed),
            str(counts.error),
            str(counts.missing),
            str(counts.ungraded),
        )
    console.print(slices)
    for title, cols, rows in trial_sections(report):
        table = Table(title=title, title_justify="left", box=None, header_style="bold")
        for col in cols:
            table.add_column(col)
        for row in rows:
            table.add_row(*row)
        console.print()
        console.print(table)

    not_passed = [c for c in report.cases if not c.synthetic and c.status != "passed"]
    if not_passed:
        console.print()
        cases = Table(
            title="Cases not passed",
            title_justify="left",
            box=None,
            pad_edge=False,
            header_style="bold",
        )
        for col in ("Case", "Slice", "Status", "Reason"):
            cases.add_column(col)
        for c in not_passed:
            label = c.id if report.trials == 1 else f"{c.id} #{c.trial}"
            cases.add_row(label, c.slice, Text(c.status, style=STATUS_STYLE[c.status]), c.reason)
        console.print(cases)

    if report.synthetic is not None:
        s = report.synthetic
        body = Table(
            title=f"{s.banner}: {f.fraction(s.task_success)} passed, never counted above",
            title_justify="left",
            title_style="bold yellow",
            box=None,
            pad_edge=False,
            header_style="bold",
        )
        for col in ("Case", "Slice", "Status", "Reason"):
            body.add_column(col)
        for c in report.cases:
            if c.synthetic:
                label = c.id if report.trials == 1 else f"{c.id} #{c.trial}"
                body.add_row(label, c.slice, Text(c.status, style=STATUS_STYLE[c.status]), c.reason)
        console.print()
        console.print(body)
    # rich pads every table row to the table's width; trailing blanks only get in the way.
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())
