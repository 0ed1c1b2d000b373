"""The composite report for a terminal, drawn with rich; returned as a string."""

from __future__ import annotations

import io

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from assay.report._composite import CompositeCaseRow, CompositeReport
from assay.report.render import _composite_format as cf
from assay.report.render import _format as f
from assay.report.render._lists import LIST_ROWS, capped
from assay.report.render._tables import figures_table
from assay.report.render._terminal import SafeConsole

VERDICT_STYLE = {"pass": "green", "fail": "red", "ungraded": "cyan"}


def _verdict(value: str) -> Text:
    return Text(value, style=VERDICT_STYLE.get(value, ""))


def _cases_table(rows: list[CompositeCaseRow], title: str | None = None) -> Table:
    return figures_table(
        ("Case", "Status", "Score", "Critical failures", "Composite", "Strict", "Failed"),
        capped(
            [
                [
                    r.label,
                    r.status,
                    cf.score(r.score),
                    cf.critical(r),
                    _verdict(r.verdict),
                    _verdict(r.strict_verdict),
                    cf.failed_checks(r),
                ]
                for r in rows[:LIST_ROWS]
            ],
            total=len(rows),
        ),
        numeric=(1, 2, 4, 5),
        title=title,
        pad_edge=True,
    )


def _rates_table(report: CompositeReport) -> Table:
    return figures_table(
        ("Metric", "Fraction", "Value", f.ci_label(report.composite_pass), "Denominator"),
        [
            [label, f.fraction(r), f.value(r), f.ci(r), f.named(r)]
            for label, r in cf.headline(report)
        ],
        numeric=(1, 2, 3),
    )


def _checks_table(report: CompositeReport) -> Table:
    table = Table(
        title=f"Check failures (real {cf.unit(report)})",
        title_justify="left",
        box=None,
        header_style="bold",
    )
    for col in ("Check", "Weight", "Critical", "Failed", "Not evaluated"):
        table.add_column(col)
    for name, c in report.check_failures.items():
        table.add_row(
            name, f"{c.weight:g}", "yes" if c.critical else "", str(c.failed), str(c.not_evaluated)
        )
    return table


def _synthetic_panel(report: CompositeReport) -> Panel:
    s = report.synthetic
    assert s is not None
    body = Table(box=None, header_style="bold")
    body.add_column("Case", no_wrap=True)
    for col in ("Provenance", "Score", "Composite", "Strict", "Reason"):
        body.add_column(col)
    for r in report.cases:
        if r.synthetic:
            body.add_row(
                r.label,
                cf.provenance(r),
                cf.score(r.score),
                _verdict(r.verdict),
                _verdict(r.strict_verdict),
                r.reason,
            )
    subtitle = (
        f"never counted in the figures above · composite {f.fraction(s.composite_pass)}, "
        f"strict {f.fraction(s.strict_pass)} passed"
    )
    return Panel(body, title=s.banner, subtitle=subtitle, border_style="yellow")


def render_composite_text(report: CompositeReport, *, color: bool = False, width: int = 120) -> str:
    """Header, per-case table, pass rates, statuses, check failures, divergence, synthetic."""
    buffer = io.StringIO()
    console = SafeConsole(
        file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False
    )
    d = report.dataset
    console.print(
        Text(
            f"assay composite · dataset {d.name} ({f.short_version(d.version)}…) · "
            f"{d.cases} real cases · input: {report.input}",
            style="bold",
        )
    )
    console.print(cf.profile_line(report))
    console.print(cf.weights_line(report), soft_wrap=True)
    console.print()
    real = [r for r in report.cases if not r.synthetic]
    console.print(_cases_table(real, title=f"Real {cf.unit(report)}"))
    console.print()
    console.print(_rates_table(report))
    console.print()
    console.print("Statuses: " + f.status_sum(report.statuses, report.total, cf.unit(report)))
    console.print()
    console.print(_checks_table(report))
    console.print()
    console.print(Text(cf.divergence(report), style="bold"))
    not_passed = [r for r in real if r.verdict != "pass" or r.strict_verdict != "pass"]
    if not_passed:
        console.print()
        reasons = Table(title="Why", title_justify="left", box=None, header_style="bold")
        for column in ("Case", "Question", "Answer", "Reason"):
            reasons.add_column(column)
        rows = [[r.label, cf.clip(r.question), cf.clip(r.answer), r.reason] for r in not_passed]
        for row in capped(rows):
            reasons.add_row(*row)
        console.print(reasons)
    if report.synthetic is not None:
        console.print()
        console.print(_synthetic_panel(report))
    return buffer.getvalue()
