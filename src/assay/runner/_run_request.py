"""Carrying out a ``RunRequest`` for one suite: the run (or its resume) into the store, its
report as stored and corrected for its judge's errors, the gates to check it with, and
what the command says about it."""

from __future__ import annotations

from dataclasses import dataclass

from assay.errors import AssayConfigError
from assay.gates import Baseline, Rule, needs_baseline, paired_rules, parse_gates
from assay.load import Suite
from assay.metrics import DEFAULT_INTERVAL
from assay.outcomes import Span
from assay.report import Report
from assay.runner._plan import Progress, RunControl
from assay.runner._receiving import Notify, SpanReceiving
from assay.runner._request import RunRequest
from assay.runner._run import RunResult, resume_run, run_suite
from assay.runs import (
    check_policy,
    corrected,
    headline,
    report_for_run,
    stored_calibration,
    suite_baseline,
    suite_calibration,
)
from assay.store import NAME_KEY, RunInfo, RunStore, open_store

__all__ = ["RunOutcome", "nothing_graded", "run_request"]


@dataclass(frozen=True)
class RunOutcome:
    """How a requested run ended: what the command prints and exits with."""

    result: RunResult
    report: Report
    """The run's report as stored, at the asked interval and trial policy, with its task
    success corrected for its judge's measured errors (or why it is not)."""
    rules: list[Rule]
    """The gates to check the report with: the suite's, then the paired ones it asks for."""
    baseline: Baseline | None
    """The suite's baseline run, when a gate compares against it."""
    shortfall: str | None
    """Why the judge's required calibration is not met (every gate then fails)."""
    spans: tuple[Span, ...] = ()
    """The run's stored spans (when asked for, to draw its traces)."""
    notices: tuple[str, ...] = ()
    """What to say before the report: nothing was left to resume, the cache failed."""

    @property
    def headline(self) -> str:
        return f"run {self.result.run_id} ({self.result.status})"

    @property
    def interrupted(self) -> str | None:
        """How to finish the run, when Ctrl-C stopped it."""
        if self.result.status != "interrupted":
            return None
        run_id = self.result.run_id
        return f"run {run_id} interrupted; finish it with `assay run --resume {run_id}`"

    @property
    def failures(self) -> tuple[str, ...]:
        """Why the run fails besides its gates: nothing was graded, its budget cut it short."""
        found = []
        nothing = nothing_graded(self.report)
        if nothing is not None:
            found.append(f"nothing was graded: {nothing}")
        budget = self.report.budget
        if budget is not None and budget.reached:
            ran = budget.case_trials - len(budget.not_run)
            found.append(
                f"run {self.result.run_id} was cut short by its budget: {ran} of "
                f"{budget.case_trials} case-trials run (exit 1, as a failed gate)"
            )
        return tuple(found)


def _quiet(_: str) -> None:
    pass


def run_request(
    request: RunRequest,
    suite: Suite | None,
    *,
    progress: Progress | None = None,
    notify: Notify = _quiet,
    keep_spans: bool = False,
) -> RunOutcome:
    """Run ``suite`` (or resume ``request.resume``, with ``suite`` when given) as
    ``request`` asks, stopping cleanly on Ctrl-C; ``suite`` is ``request.single``'s.
    Received spans are stored before the report is made, and the case-trials they describe
    judged on them; ``notify`` hears what happens meanwhile. With ``keep_spans`` the
    outcome carries the run's spans."""
    rules = suite.gate_rules() if suite is not None else []
    runs = open_store(request.store)
    if request.name is not None:
        try:
            runs.check_new_name(request.name)
        except BaseException:
            runs.close()
            raise
    receiving = None
    if request.receive_spans:
        receiving = SpanReceiving.start(request.store, request.receive_port, notify)
    try:
        control = RunControl(
            progress=progress,
            handle_signals=True,
            otlp_endpoint=request.otlp_endpoint,
            metadata={NAME_KEY: request.name} if request.name is not None else {},
        )
        if request.resume is not None:
            if suite is None:  # the gates of the suite the run was started with
                rules = stored_rules(runs.get_run(request.resume))
            result = resume_run(
                runs, request.resume, suite=suite, overrides=request.run_overrides, control=control
            )
        else:
            assert suite is not None
            result = run_suite(
                suite,
                runs,
                selection=request.selection,
                overrides=request.run_overrides,
                control=control,
            )
        rejudged = 0
        if receiving is not None:  # every span is in: judge on the trajectories they describe
            receiving.stop()
            rejudged = _judged_on_spans(runs, result.run_id, suite, notify)
        report, shortfall = _reported(request, runs, result, suite, rejudged)
        setting = request.interval
        baseline = suite_baseline(runs, result.run_id, setting) if needs_baseline(rules) else None
    finally:
        if receiving is not None:
            receiving.stop()
        runs.close()
    spans = _stored_spans(request.store, result.run_id) if keep_spans else ()
    notices = _notices(request, result, report)
    return RunOutcome(
        result, report, [*rules, *paired_rules(report)], baseline, shortfall, spans, notices
    )


def stored_rules(info: RunInfo) -> list[Rule]:
    """The gate rules of the suite a stored run was started with."""
    return parse_gates(info.suite.get("gates"), f"run {info.id}: its suite's gates")


def _reported(
    request: RunRequest, runs: RunStore, result: RunResult, suite: Suite | None, rejudged: int
) -> tuple[Report, str | None]:
    """The run's report as asked for and corrected, and why its judge's calibration
    falls short (None when it does not)."""
    if suite is not None:
        check = suite_calibration(suite)
    else:  # the calibration the suite the run was started with requires
        check = stored_calibration(runs.get_run(result.run_id))
    policy = None
    if request.trial_policy is not None:
        trials_run = runs.get_run(result.run_id).trials
        policy = check_policy(request.trial_policy, trials_run, request.product_selects_best)
    report = result.report
    if rejudged or request.interval != DEFAULT_INTERVAL or policy is not None:
        # the run as stored, reported at the asked level and policy
        report = report_for_run(runs, result.run_id, interval=request.interval, policy=policy)
    return corrected(report, check), None if check is None else check.shortfall()


def _judged_on_spans(runs: RunStore, run_id: str, suite: Suite | None, notify: Notify) -> int:
    """Judge again the case-trials of ``run_id`` that returned no trajectory but whose
    received spans describe one (with the suite's grader, or the one the run recorded),
    and keep the run's headline figures in step; how many were judged again."""
    # Deferred: rebuilding a recorded grader loads the judge's modules (and more), which a
    # run that receives no spans never needs.
    from assay.runner._regrade import recorded_grader
    from assay.runner._span_grading import grade_from_spans

    info = runs.get_run(run_id)
    try:
        grader = suite.grader() if suite is not None else recorded_grader(info)[0]
    except AssayConfigError as err:
        notify(
            f"warning: the case-trials were not judged on their spans' trajectories "
            f"({err}); `assay regrade {run_id} --grader ...` judges them"
        )
        return 0
    rejudged = grade_from_spans(runs, run_id, grader)
    if rejudged:
        runs.finish_run(run_id, info.status, headline(report_for_run(runs, run_id)))
        notify(f"{rejudged} case-trial(s) judged on the trajectory their spans describe")
    return rejudged


def _stored_spans(store: str | None, run_id: str) -> tuple[Span, ...]:
    """The run's spans, read once the receiver stored what it got."""
    again = open_store(store, create=False)
    try:
        return tuple(again.spans(run_id))
    finally:
        again.close()


def _notices(request: RunRequest, result: RunResult, report: Report) -> tuple[str, ...]:
    found = []
    sampled = report.sequential
    if request.resume is not None and result.ran == 0:
        if sampled is not None and sampled.stopped_early:
            found.append(
                f"nothing left to run: run {result.run_id} was decided after "
                f"{sampled.decided_at or sampled.drawn} of {sampled.cases} cases"
            )
        else:
            found.append(
                f"nothing left to run: every case-trial of run {result.run_id} was already recorded"
            )
    if result.cache_error is not None:
        found.append(
            f"warning: the response cache could not keep replies "
            f"({result.cache_error}); the run is complete, a rerun calls the target again"
        )
    return tuple(found)


def nothing_graded(report: Report) -> str | None:
    """Why a run produced nothing (every case-trial ended in error), or None."""
    counts = [report.statuses]
    if report.synthetic is not None:
        counts.append(report.synthetic.statuses)
    total = sum(c.total for c in counts)
    errors = sum(c.error for c in counts)
    if total == 0 or errors < total:
        return None
    first = next((row.reason for row in report.cases if row.status == "error"), "")
    example = f"; the first: {first}" if first else ""
    return f"all {total} case-trials of run {report.run_id} ended in error{example}"
