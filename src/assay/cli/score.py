"""``assay score``: score recorded results against a dataset."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import (
    CONFIDENCE,
    INTERVAL,
    PRODUCT_SELECTS_BEST,
    TRIAL_POLICY,
    format_option,
)
from assay.cli._output import described, emit, wants_color
from assay.errors import MAX_TRIALS

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from assay.cases import Dataset
    from assay.grading import CaseResult
    from assay.load._aside import ResultsAside
    from assay.metrics import IntervalSetting
    from assay.outcomes import Results
    from assay.report import Report


def score(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    results: Path = typer.Argument(..., help="Results file (JSONL): one outcome per line."),
    format: str | None = format_option("report"),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the report to this file. An existing file is replaced only if it is "
        "an assay report; the dataset, the results or any other file are never overwritten.",
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    trials: int | None = typer.Option(
        None,
        "--trials",
        min=1,
        max=MAX_TRIALS,
        help="How many trials every case ran (default: the highest trial recorded; at "
        f"most {MAX_TRIALS:,}, as a suite declares). Declared, a case with fewer recorded "
        "trials has the rest missing, and a result past it is an error.",
    ),
    grader: Path | None = typer.Option(
        None,
        "--grader",
        help="Judge settings (YAML: base_url, model, rubric, …): grade free-text answers "
        "with a model against each case's rubric instead of the structured grader. A "
        "reply the judge cannot give properly makes the case ungraded, with the reason. "
        "See docs/judge.md.",
    ),
    trial_policy: str | None = TRIAL_POLICY,
    product_selects_best: bool = PRODUCT_SELECTS_BEST,
) -> None:
    """Score RESULTS against DATASET with the structured grader (or the model judge of
    --grader) and print the report."""
    from assay.cli._options import check_policy, interval_setting, output_format
    from assay.cli._output import check_output
    from assay.grading import grade_all
    from assay.load import load_dataset, load_results
    from assay.outcomes import trial_gaps
    from assay.report import build_report, summarize_usage

    format = output_format(format, output, inputs=[p for p in (dataset, results, grader) if p])
    setting = interval_setting(confidence, interval)
    if output is not None:
        check_output(output, (dataset, results))
    streams = grader is None and trials in (None, 1) and not trial_policy
    streamed = None
    halves = streams and format in _HALVED_FORMATS and _halves(dataset)
    with _aside(results if streams else None, shared=not halves) as aside:
        if halves and aside is not None:
            if format == "json" and _halved(dataset, results, aside, setting, output):
                return
            if format != "json" and _listed(dataset, results, aside, setting, output, format):
                return
        data = load_dataset(dataset)
        if streams:
            data = data.without_locations()
            streamed = _streamed(data, results, setting, aside)
    if streamed is not None:
        _emit(streamed, format, output, dataset, results, grader)
        return
    recorded = load_results(results)
    if not recorded.records:
        typer.echo(f"assay: {results}: no results recorded; every case is missing", err=True)
    if trials is None:
        for warning in trial_gaps(recorded):
            typer.echo(f"assay: warning: {warning}", err=True)
    else:
        _check_declared(recorded, trials)
    graded = (
        _judged(data, recorded, grader)
        if grader is not None
        else grade_all(data, recorded, trials=trials)
    )
    k = max((r.trial for r in graded if not r.case.synthetic), default=1)
    policy = check_policy(trial_policy, k, product_selects_best) if trial_policy else None
    measured = any(r.usage is not None or r.latency_ms is not None for r in recorded.records)
    usage = summarize_usage(recorded.records) if measured else None  # none measured: no section
    del recorded  # from here each record lives only until its report row is made
    report = build_report(
        data,
        graded,
        interval=setting,
        policy=policy,
        usage=usage,
        compact=True,
    )
    del data, graded  # the report holds what it shows; the rest is freed before rendering
    _emit(report, format, output, dataset, results, grader)


def _emit(
    report: Report,
    format: str,
    output: Path | None,
    dataset: Path,
    results: Path,
    grader: Path | None,
) -> None:
    from assay.report.render import render_chunks

    inputs = [p for p in (dataset, results, grader) if p is not None]
    emit(
        render_chunks(report, format, color=wants_color(output)),
        output,
        inputs,
        what=described(report, format, f"{results.name} against {dataset.name}"),
    )


_HALVED_FORMATS = ("json", "text", "markdown", "junit", "html")
"""The formats a large dataset's report is made in by two processes: the JSON report
(``halved_json``), those listing only the cases not passed (``halved_listed``) and those
showing every case (``halved_whole``, ``_EVERY_ROW``)."""
_EVERY_ROW = ("junit", "html")


def _halved(
    dataset: Path,
    results: Path,
    aside: ResultsAside,
    setting: IntervalSetting,
    output: Path | None,
) -> bool:
    """Write (or print) the JSON report made by two processes (``halved_json``), when
    the files are the usual ones that path covers; False, having said nothing,
    otherwise."""
    from assay.cli._halves import halved_json

    made = halved_json(dataset, aside, setting)
    if made is None:
        return False
    with made:
        emit(
            made.pieces(),
            output,
            [dataset, results],
            what=described(made.report, "json", f"{results.name} against {dataset.name}"),
        )
    return True


def _listed(
    dataset: Path,
    results: Path,
    aside: ResultsAside,
    setting: IntervalSetting,
    output: Path | None,
    format: str,
) -> bool:
    """Write (or print) the report made by two processes with the rows the text and
    Markdown renderings list (``halved_listed``), or every row (``halved_whole``: while
    ``aside`` is open), when the files are the usual ones that path covers; False, having
    said nothing, otherwise."""
    from assay.cli._halved_rows import HalvedRows
    from assay.cli._halves import halved_listed, halved_whole

    made = (halved_whole if format in _EVERY_ROW else halved_listed)(dataset, aside, setting)
    if made is None:
        return False
    try:
        _emit(made, format, output, dataset, results, None)
    finally:
        if isinstance(made.cases, HalvedRows):
            made.cases.close()
    return True


def _halves(dataset: Path) -> bool:
    """Whether the dataset is one ``halved_json`` and ``halved_listed`` may score (a
    large JSON Lines file)."""
    from assay.cli._halves import may_halve

    return may_halve(dataset)


def _aside(
    results: Path | None, shared: bool = True
) -> AbstractContextManager[ResultsAside | None]:
    """The results file read by a second process while the dataset is read (a large
    JSON Lines file on Linux), or None. ``shared``: see ``ResultsAside.start``."""
    if results is None:
        return contextlib.nullcontext()
    from assay.load._aside import ResultsAside

    aside = ResultsAside.start(results, shared=shared)
    return contextlib.nullcontext() if aside is None else aside


def _streamed(
    data: Dataset, results: Path, interval: IntervalSetting, aside: ResultsAside | None
) -> Report | None:
    """The report made as the results file is read (``streamed_report``; from the lines
    read aside when they are the usual ones), when it is the usual file that path covers;
    None otherwise (nothing is said: the usual path reads it again and says what, if
    anything, is wrong with it)."""
    from assay.grading._structured import StructuredGrader
    from assay.load._files import NotStreamable, plain_records
    from assay.report._streamed import streamed_lines_report, streamed_report

    lines = aside.plain_lines() if aside is not None else None
    if lines is not None:
        report = streamed_lines_report(data, lines, interval=interval)
        if report is not None:
            return report
    try:
        return streamed_report(
            data,
            plain_records(results),
            StructuredGrader(),
            interval=interval,
        )
    except NotStreamable:
        return None


def _check_declared(recorded: Results, trials: int) -> None:
    """Refuse results past the declared trial count, naming each line."""
    from assay.errors import InputFormatError, Problem

    problems = [
        Problem(f"{r.case_id}: trial {r.trial} is past --trials {trials}", where, "trial")
        for i, r in enumerate(recorded.records)
        if r.trial > trials
        for where in [recorded.location_of(i)]
    ]
    if problems:
        raise InputFormatError(problems[:20], f"results past the declared {trials} trials")


def _judged(data: Dataset, recorded: Results, settings: Path) -> list[CaseResult]:
    """Every case-trial graded by the judge the settings file describes."""
    from assay.grading import validate_inputs
    from assay.load import load_judge
    from assay.runner import judge_results

    judge = load_judge(settings).grader(data.sources)
    cases, checked = validate_inputs(data, recorded)
    return judge_results(cases, checked.records, judge)
