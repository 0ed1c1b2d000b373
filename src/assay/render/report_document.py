"""The report as a ``Document``: what the text and Markdown reports show, said once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain, islice

import assay.render._format as f
from assay.render._lists import first_ids
from assay.render._trials import judge_noise_lines, trial_lines, trial_sections
from assay.render.document import (
    Align,
    Banner,
    Block,
    BulletList,
    Cell,
    Column,
    Document,
    Gap,
    Groups,
    Heading,
    Inline,
    Only,
    Paragraph,
    Span,
    Table,
    table,
)
from assay.report import (
    Brief,
    Report,
    briefs_where,
    budget_lines,
    imported_line,
    rows_of,
    rows_where,
)

STATUS_STYLE = {
    "passed": "green",
    "failed": "red",
    "error": "magenta",
    "missing": "yellow",
    "ungraded": "cyan",
}
"""The terminal colour of each status."""

TABLE_ROWS = 100
"""Longest list of cases drawn as a table; a longer one is grouped by status and reason."""


def status_cell(status: str) -> Span:
    """A status, in its terminal colour."""
    return Span(status, color=STATUS_STYLE[status])


def _title(report: Report) -> list[Block]:
    d = report.dataset
    head = f"assay report · dataset {d.name} ({f.short_version(d.version)}…) · {d.cases} cases"
    if f.title_name(report) != d.name:
        head = f"assay report · {f.title_name(report)} · " + head.removeprefix("assay report · ")
    if report.trials > 1:
        head += f" × {report.trials} trials"
    if report.run_id:
        head += f" · run {report.run_id}"
    text: list[Block] = [Heading(head)]
    if report.graders:
        graders = ", ".join(f"{g.name} v{g.version}" for g in report.graders)
        text.append(Paragraph.of(f"graders: {graders} · assay {report.assay_version}"))
    run: list[Inline] = [", run ", Span(report.run_id, "code")] if report.run_id else []
    markdown: list[Block] = [
        Heading(f"assay report: {f.title_name(report)}"),
        dataset_paragraph(
            d.name,
            d.version,
            f", {d.cases} real cases",
            *([f", {report.trials} trials per case"] if report.trials > 1 else []),
            *run,
            f"; assay {report.assay_version}.",
        ),
    ]
    return [Only("text", tuple(text)), Only("markdown", tuple(markdown))]


def dataset_paragraph(name: str, version: str, *rest: Inline) -> Paragraph:
    """The Markdown title's line naming the dataset and its version, then ``rest``."""
    return Paragraph.of("Dataset ", Span(name, "code"), " version ", Span(version, "code"), *rest)


def rates_table(
    rows: Sequence[tuple[str, f.Figure]],
    ci_label: str,
    title: str | None = None,
    *,
    fraction: Align = "right",
) -> Table:
    """Rates with their fraction (aligned as ``fraction`` says), value, interval and named
    denominator."""
    columns: list[Column | str] = [
        "Metric",
        Column("Fraction", fraction, whole=True),
        Column("Value", whole=True),
        Column(ci_label, whole=True),
        "Denominator",
    ]
    cells: list[list[Cell]] = [
        [label, f.fraction(r), f.value(r), f.ci(r), f.named(r)] for label, r in rows
    ]
    return table(columns, cells, title=title)


def _cases(report: Report) -> list[Block]:
    # Streamed: a long list is grouped as it is read, never held as rows.
    stream = briefs_where(report.cases, _not_passed)
    not_passed = list(islice(stream, TABLE_ROWS + 1))
    if not not_passed:
        return []
    if len(not_passed) > TABLE_ROWS:
        listed = chain(not_passed, stream)
        return [Gap(), _grouped("Cases not passed", listed, report.trials)]
    rows: list[list[Cell]] = [
        [f.case_label(c, report.trials), c.slice, status_cell(c.status), f.reason_with_raw(c)]
        for c in rows_of(report.cases, _not_passed, not_passed)
    ]
    columns: list[Column | str] = ["Case", "Slice", Column("Status", whole=True), "Reason"]
    return [Gap(), table(columns, rows, title="Cases not passed")]


def _not_passed(status: str, synthetic: bool) -> bool:
    return not synthetic and status != "passed"


def _synthetic_row(status: str, synthetic: bool) -> bool:
    return synthetic


def _grouped(title: str, cases: Iterable[Brief], trials: int) -> Groups:
    """Every case of a long list, named once, grouped by status and reason: a summary a
    reader can take in, that still lists each case (a table of thousands of rows is not
    read, and takes rich seconds to draw)."""
    groups: dict[tuple[str, str], list[str]] = {}
    count = 0
    for c in cases:
        groups.setdefault((c.status, c.reason), []).append(f.case_label(c, trials))
        count += 1
    return Groups(
        f"{title}: {count:,}, grouped by status and reason",
        tuple(
            (f"{status} ({len(labels):,}): {reason}", tuple(labels))
            for (status, reason), labels in sorted(groups.items(), key=lambda g: -len(g[1]))
        ),
    )


def _synthetic(report: Report) -> list[Block]:
    s = report.synthetic
    if s is None:
        return []
    fake = list(rows_where(report.cases, _synthetic_row))
    several = any(c.trial > 1 for c in fake)
    rows: list[list[Cell]] = [
        [f"{c.id} #{c.trial}" if several else c.id, c.slice, status_cell(c.status), c.reason]
        for c in fake
    ]
    return [
        Gap(),
        Banner(s.banner),
        Paragraph.of(
            f"{len(s.case_ids)} synthetic case(s), never counted above: "
            f"{f.fraction(s.task_success)} passed ({f.value(s.task_success)})."
        ),
        table(["Case", "Slice", Column("Status", whole=True), "Reason"], rows),
    ]


def _sequential(report: Report) -> list[Block]:
    lines = f.sequential_lines(report)
    if report.sequential is None:
        return []
    blocks: list[Block] = [Gap(), BulletList(tuple(lines), title="Sequential run")]
    if report.sequential.not_drawn:
        ids = report.sequential.not_drawn
        blocks += _id_list(f"Cases not drawn: {len(ids):,}", "never run", ids)
    return blocks


def _budget(report: Report) -> list[Block]:
    if report.budget is None:
        return []
    lines = tuple(budget_lines(report.budget))
    blocks: list[Block] = [Gap(), BulletList(lines, title="Budget")]
    if report.budget.not_run:
        ids = report.budget.not_run
        blocks += _id_list(f"Case-trials not run (budget reached): {len(ids):,}", "not run", ids)
    return blocks


def _id_list(title: str, head: str, ids: Sequence[str]) -> list[Block]:
    """A list of case ids that stays readable at any length: the first ones, then how many
    more the JSON report lists."""
    kept, more = first_ids(ids)
    blocks: list[Block] = [Groups(title, ((head, kept),))]
    if more is not None:
        blocks.append(Paragraph.of(more, layout="whole"))
    return blocks


def _agents(report: Report) -> list[Block]:
    """What the agents did: the counts in total and per slice, then per case-trial (when
    no more than ``TABLE_ROWS`` recorded a trajectory; the JSON and HTML reports have
    every one)."""
    if report.agent is None:
        return []
    blocks: list[Block] = [
        Gap(),
        BulletList(tuple(f.agent_section_lines(report)), title="Agents"),
    ]
    if report.agent.case_trials <= TABLE_ROWS:
        columns: list[Column | str] = [
            Column(name, "right", whole=True) if 3 <= i < 7 else name
            for i, name in enumerate(f.AGENT_COLUMNS)
        ]
        rows: list[list[Cell]] = [
            [*row[:2], status_cell(row[2]), *row[3:]] for row in f.agent_rows(report)
        ]
        blocks += [table(columns, rows, title="Agent steps per case-trial"), Gap()]
    return blocks


def report_document(report: Report) -> Document:
    """Headline rates, the status sum, slices, the non-passing cases and the synthetic
    ones (never counted)."""
    ci_label = f.ci_label(report.task_success, report.trial_summary is not None)
    blocks: list[Block] = _title(report)
    if (imported := imported_line(report.metadata)) is not None:
        blocks.append(Paragraph.of(imported, layout="whole"))
    if (change := f.change_line(report)) is not None:
        blocks.append(Paragraph.of(Span(change, "emph")))
    blocks += _sequential(report)
    blocks += _budget(report)
    blocks += [
        Gap(),
        rates_table(f.headline(report) + f.dimensions(report), ci_label),
        Gap(),
        Paragraph.of(
            Span("Statuses:", "strong"),
            " " + f.status_sum(report.statuses, report.total, f.unit(report)),
        ),
        Gap(),
    ]
    for line in (*f.bounds_lines(report), f.correction_line(report)):
        if line is not None:
            blocks += [Paragraph.of(line), Gap()]
    if (heldout := f.heldout_line(report)) is not None:
        blocks += [Paragraph.of(Span(heldout, "strong", "yellow")), Gap()]
    if report.splits:
        title = "By split (each with its own denominators)"
        blocks.append(rates_table(f.split_rows(report), ci_label, title))
        statuses = tuple(
            f"{b.split} statuses: " + f.status_sum(b.statuses, b.total, f.unit(report))
            for b in report.splits
        )
        blocks.append(BulletList((*statuses, *f.split_bounds_lines(report))))
    if usage := f.usage_lines(report.usage, report.judge_usage):
        blocks.append(BulletList(tuple(usage), title="Usage"))
    blocks += _agents(report)
    if (cached := f.cache_line(report)) is not None:
        name, _, rest = cached.partition(":")
        blocks += [Paragraph.of(Span(f"{name}:", "strong"), rest), Gap()]
    if report.trial_summary is not None:
        blocks += [BulletList(tuple(trial_lines(report))), Gap()]
    if noise := judge_noise_lines(report):
        blocks += [BulletList(tuple(noise), title="Judge noise apart from system noise"), Gap()]
    per = " (per trial)" if report.trial_summary is not None else ""
    slices = [
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
    ]
    columns: list[Column | str] = [
        "Slice",
        *(
            Column(name, "left" if name == "Interval" else "right", whole=True)
            for name in ("Passed", "Value", "Interval", "Failed", "Error", "Missing", "Ungraded")
        ),
    ]
    blocks.append(table(columns, slices, title=f"Slices{per}"))
    for title, cols, rows in trial_sections(report):
        numbered = [Column(c, whole=c not in ("Case", "Slice", "")) for c in cols]
        blocks += [Gap(), table(numbered, rows, title=title, pad_edge=True)]
    blocks += _cases(report)
    blocks += _synthetic(report)
    return Document(tuple(blocks))


__all__ = ["STATUS_STYLE", "TABLE_ROWS", "rates_table", "report_document", "status_cell"]
