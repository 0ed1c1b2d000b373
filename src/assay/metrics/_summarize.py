"""Summaries of graded case-trials: the seed's figures, with every rate's denominator named."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from assay.grading import STATUSES, CaseResult
from assay.metrics._cluster import clustered_by_case
from assay.metrics._consistency import TrialSummary, summarize_trials
from assay.metrics._group import group_by
from assay.metrics._rate import Rate, rate
from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting
from assay.metrics._trials import TrialPolicy

CASES = "cases in the dataset"
ANSWERS = "substantive answers"
SLICE_CASES = "cases in the slice"
PASSING_CASES = "passing cases"
PASSING_ANSWERS = "passing answers"
TRIALS = ("passing case-trials", "case-trials")
ANSWERED_TRIALS = ("substantive answers", "case-trials")
SLICE_TRIALS = ("passing case-trials", "case-trials in the slice")
UNKNOWN_STATUSES = frozenset({"error", "missing", "ungraded"})
"""The statuses of case-trials whose verdict is unknown: a rate's bounds count them failed,
then passed."""


class StatusCounts(BaseModel):
    """How many case-trials ended in each status; they add up to the total."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    passed: int = 0
    failed: int = 0
    error: int = 0
    missing: int = 0
    ungraded: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.error + self.missing + self.ungraded

    @property
    def unknown(self) -> int:
        """Case-trials whose verdict is unknown: error, missing or ungraded."""
        return self.error + self.missing + self.ungraded


class SliceSummary(BaseModel):
    """One slice: its cases, how many passed, and the rate with its interval."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    total: int
    success: int
    task_success: Rate
    statuses: StatusCounts


class Summary(BaseModel):
    """The seed's ``summarize`` result with Python names, plus status counts and intervals.

    Counts are over case-trials (one per case when there is one trial). Synthetic cases are
    never counted here: they are summarized apart in ``synthetic``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    total: int
    success: int
    answered: int
    correct_answers: int
    errors: int
    missing: int
    ungraded: int
    statuses: StatusCounts
    task_success: Rate
    answer_coverage: Rate
    answered_accuracy: Rate
    slices: dict[str, SliceSummary]
    trials: int = 1
    answered_unknown: int = 0
    synthetic: Summary | None = None
    trial_summary: TrialSummary | None = None


def _counts(results: Iterable[CaseResult]) -> StatusCounts:
    tally = dict.fromkeys(STATUSES, 0)
    for r in results:
        tally[r.status] += 1
    return StatusCounts(**tally)


def _clustered(
    r: Rate,
    items: Sequence[CaseResult],
    hit: Callable[[CaseResult], bool],
    unit: Callable[[CaseResult], bool],
    names: tuple[str, str] | None = None,
) -> Rate:
    """``r`` with its interval clustered by case: trials of one case are one unit."""
    return named(clustered_by_case(r, ((x.case.id, hit(x)) for x in items if unit(x))), names)


def named(r: Rate, names: tuple[str, str] | None) -> Rate:
    """``r`` with its numerator and denominator named ``names`` (unchanged: None)."""
    if names is None:
        return r
    return r.model_copy(update={"numerator_name": names[0], "denominator_name": names[1]})


def _with_trials(
    summary: Summary,
    graded: Sequence[CaseResult],
    policy: TrialPolicy,
    interval: IntervalSetting,
    declared: bool,
) -> Summary:
    """Several trials per case: per-trial rates get case-clustered intervals, and the
    policy's task success, per-case consistency and flaky cases are added."""

    def passed(x: CaseResult) -> bool:
        return x.status == "passed"

    def always(x: CaseResult) -> bool:
        return True

    def answered(x: CaseResult) -> bool:
        return x.answered

    by_slice = group_by(graded, _slice)
    slices = {
        name: sl.model_copy(
            update={
                "task_success": _clustered(
                    sl.task_success, by_slice[name], passed, always, SLICE_TRIALS
                )
            }
        )
        for name, sl in summary.slices.items()
    }
    return summary.model_copy(
        update={
            "task_success": _clustered(summary.task_success, graded, passed, always, TRIALS),
            "answer_coverage": _clustered(
                summary.answer_coverage, graded, answered, always, ANSWERED_TRIALS
            ),
            "answered_accuracy": _clustered(summary.answered_accuracy, graded, passed, answered),
            "slices": slices,
            "trial_summary": summarize_trials(
                graded,
                policy,
                summary.trials,
                interval=interval,
                declared=declared,
            ),
        }
    )


def summary_of_statuses(
    statuses: StatusCounts,
    answered: int,
    correct: int,
    slices: dict[str, StatusCounts],
    *,
    trials: int,
    interval: IntervalSetting,
    answered_unknown: int = 0,
) -> Summary:
    """The summary of case-trials counted by status (in all and by slice), with how many
    answered, how many of those passed and how many of those are error, missing or
    ungraded (``answered_unknown``): every rate with its named denominator."""

    def ratio(num: int, den: int, den_name: str, num_name: str) -> Rate:
        return rate(num, den, den_name, numerator_name=num_name, interval=interval)

    total = statuses.total
    return Summary(
        total=total,
        success=statuses.passed,
        answered=answered,
        correct_answers=correct,
        errors=statuses.error,
        missing=statuses.missing,
        ungraded=statuses.ungraded,
        statuses=statuses,
        task_success=ratio(statuses.passed, total, CASES, PASSING_CASES),
        answer_coverage=ratio(answered, total, CASES, ANSWERS),
        answered_accuracy=ratio(correct, answered, ANSWERS, PASSING_ANSWERS),
        slices={
            name: SliceSummary(
                total=counted.total,
                success=counted.passed,
                task_success=ratio(counted.passed, counted.total, SLICE_CASES, PASSING_CASES),
                statuses=counted,
            )
            for name, counted in slices.items()
        },
        trials=trials,
        answered_unknown=answered_unknown,
    )


def summarize_graded(
    graded: Sequence[CaseResult],
    *,
    trials: int = 1,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary:
    """The summary of already-graded case-trials (all of them real, or all synthetic).

    With more than one trial, intervals are clustered by case and ``trial_summary`` gives
    task success under ``policy`` (``mean`` of the trials when none is stated).
    """

    answered = sum(1 for r in graded if r.answered)
    correct = sum(1 for r in graded if r.answered and r.status == "passed")
    answered_unknown = sum(1 for r in graded if r.answered and r.status in UNKNOWN_STATUSES)
    by_slice = group_by(graded, _slice)
    summary = summary_of_statuses(
        _counts(graded),
        answered,
        correct,
        {name: _counts(items) for name, items in by_slice.items()},
        trials=trials,
        interval=interval,
        answered_unknown=answered_unknown,
    )
    if trials > 1 and graded:
        chosen = policy if policy is not None else TrialPolicy("mean")
        summary = _with_trials(summary, graded, chosen, interval, declared=policy is not None)
    return summary


def _slice(r: CaseResult) -> str:
    return r.case.slice


def _fits(policy: TrialPolicy, trials: int) -> bool:
    """True when ``policy`` can combine ``trials`` trials (pass^3 needs at least 3)."""
    try:
        policy.resolved(trials)
    except ValueError:
        return False
    return True


def summarize_results(
    graded: Sequence[CaseResult],
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary:
    """Real cases summarized; synthetic ones summarized apart, never in real totals.

    Each group's trial count is its own (the highest trial among its rows): no figure of
    the real cases depends on a synthetic row.
    """
    real = [r for r in graded if not r.case.synthetic]
    synthetic = [r for r in graded if r.case.synthetic]
    summary = summarize_graded(
        real,
        trials=max((r.trial for r in real), default=1),
        interval=interval,
        policy=policy,
    )
    if synthetic:
        synthetic_trials = max((r.trial for r in synthetic), default=1)
        apart = summarize_graded(
            synthetic,
            trials=synthetic_trials,
            interval=interval,
            policy=policy if policy is None or _fits(policy, synthetic_trials) else None,
        )
        summary = summary.model_copy(update={"synthetic": apart})
    return summary
