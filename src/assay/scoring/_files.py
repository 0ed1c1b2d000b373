"""A results file scored against a dataset file: the report, made the quickest way the
files and the report's format allow.

The usual large pair of JSON Lines files (one trial, outcomes only, the structured
grader) is scored by two processes, each taking part of the cases end to end
(``scoring._two_processes``), or, when only the results file is large, as the results
are read (``report._streamed``). Anything else is scored the general way: every record
graded, then counted. Every way gives the same report, byte for byte in every format
(tests/e2e/test_score_halves.py); the general way is also the one that says what, if
anything, is wrong with the files.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from assay.cases import Dataset
from assay.errors import InputFormatError, Problem
from assay.formats import report_rows
from assay.grading import CaseResult, StructuredGrader, grade_all, validate_inputs
from assay.load import NotStreamable, ResultsAside, load_dataset, load_results, plain_records
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, TrialPolicy
from assay.outcomes import Results, trial_gaps
from assay.report import (
    Report,
    build_report,
    close_rows,
    streamed_lines_report,
    streamed_report,
    summarize_usage,
)
from assay.scoring._two_processes import halved_json, halved_listed, halved_whole, may_halve

Warn = Callable[[str], None]


@contextlib.contextmanager
def score_files(
    dataset: Path,
    results: Path,
    *,
    fmt: str = "json",
    interval: IntervalSetting = DEFAULT_INTERVAL,
    trials: int | None = None,
    policy: Callable[[int], TrialPolicy] | None = None,
    grader: Path | None = None,
    warn: Warn | None = None,
) -> Iterator[Report]:
    """The report of the results file ``results`` scored against the dataset file
    ``dataset``, to be rendered in ``fmt`` (a report format: its rows are made as that
    format's writer reads them, ``assay.formats.REPORT_ROWS``), while the block lasts.

    ``trials``: how many trials every case ran (default: the highest recorded; declared,
    a result past it is refused). ``policy``: the trial policy for the trials found.
    ``grader``: a judge settings file; the structured grader otherwise. ``warn`` hears
    what the user should know that is not an error (no result recorded, gaps in trials).
    """
    said: Warn = warn if warn is not None else _quiet
    with contextlib.ExitStack() as held:
        report = _scored(dataset, results, fmt, interval, trials, policy, grader, said, held)
        held.callback(close_rows, report)  # before the lines read aside are dropped
        yield report


def _quiet(message: str) -> None:
    del message


def _scored(
    dataset: Path,
    results: Path,
    fmt: str,
    interval: IntervalSetting,
    trials: int | None,
    policy: Callable[[int], TrialPolicy] | None,
    grader: Path | None,
    warn: Warn,
    held: contextlib.ExitStack,
) -> Report:
    """The report; what it holds open (the lines read aside, which rows a second
    process did not make are made again from) is closed with ``held``."""
    streams = grader is None and trials in (None, 1) and policy is None
    rows = report_rows(fmt)
    halves = streams and may_halve(dataset)
    aside = ResultsAside.start(results, shared=not halves) if streams else None
    if aside is not None:
        held.enter_context(aside)
    if halves and aside is not None:
        halved = {"written": halved_json, "every": halved_whole, "listed": halved_listed}
        made = halved[rows](dataset, aside, interval)
        if made is not None:
            return made
    data = load_dataset(dataset)
    if streams:
        data = data.without_locations()
        streamed = _streamed(data, results, interval, aside)
        if streamed is not None:
            return streamed
    return _general(data, results, interval, trials, policy, grader, warn)


def _streamed(
    data: Dataset, results: Path, interval: IntervalSetting, aside: ResultsAside | None
) -> Report | None:
    """The report made as the results are read (from the lines read aside, when they
    are the usual ones), when the results file is the usual one; None otherwise (the
    general way reads it again and says what, if anything, is wrong with it)."""
    lines = aside.plain_lines() if aside is not None else None
    if lines is not None:
        report = streamed_lines_report(data, lines, interval=interval)
        if report is not None:
            return report
    try:
        return streamed_report(data, plain_records(results), StructuredGrader(), interval=interval)
    except NotStreamable:
        return None


def _general(
    data: Dataset,
    results: Path,
    interval: IntervalSetting,
    trials: int | None,
    policy: Callable[[int], TrialPolicy] | None,
    grader: Path | None,
    warn: Warn,
) -> Report:
    """Every record graded (by the judge of ``grader``, or the structured grader), then
    counted."""
    recorded = load_results(results)
    if not recorded.records:
        warn(f"{results}: no results recorded; every case is missing")
    if trials is None:
        for gap in trial_gaps(recorded):
            warn(f"warning: {gap}")
    else:
        _check_declared(recorded, trials)
    graded = (
        _judged(data, recorded, grader)
        if grader is not None
        else grade_all(data, recorded, trials=trials)
    )
    k = max((r.trial for r in graded if not r.case.synthetic), default=1)
    measured = any(r.usage is not None or r.latency_ms is not None for r in recorded.records)
    usage = summarize_usage(recorded.records) if measured else None  # none measured: no section
    del recorded  # from here each record lives only until its report row is made
    return build_report(
        data,
        graded,
        interval=interval,
        policy=policy(k) if policy is not None else None,
        usage=usage,
        compact=True,
    )


def _check_declared(recorded: Results, trials: int) -> None:
    """Refuse results past the declared trial count, naming each line."""
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
    # Imported here: the judge's client, its targets and the runner's calls (80 modules)
    # are loaded only when a judge grades, not by every ``assay score``.
    from assay.load import load_judge
    from assay.runner import judge_results

    judge = load_judge(settings).grader(data.sources)
    cases, checked = validate_inputs(data, recorded)
    return judge_results(cases, checked.records, judge)
