"""What a report's task success would be with the judge's measured errors corrected, and
within which bounds it lies whatever its unknown case-trials would have been."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.metrics import (
    MIN_LABELS_EACH,
    FormerCi95,
    IntervalSetting,
    Rate,
    SliceSummary,
    StatusCounts,
    TrialSummary,
    case_design_effect,
    corrected_rate,
    rate,
)

if TYPE_CHECKING:
    from assay.report._calibration import CalibrationReport

CorrectionMethod = Literal["rogan-gladen/lang-reiczigel"]
CORRECTION_METHOD: CorrectionMethod = "rogan-gladen/lang-reiczigel"


class CorrectedRate(FormerCi95):
    """A rate corrected for the judge's measured errors: the Rogan–Gladen estimate and Lang
    & Reiczigel's (2014) interval at ``confidence``, which carries the sampling error of
    the run and of the calibration's labels."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    value: float
    ci: tuple[float, float]
    confidence: float = 0.95
    method: CorrectionMethod = CORRECTION_METHOD
    denominator_name: str = "case-trials in the dataset"


class CalibrationUsed(BaseModel):
    """The calibration a correction rests on: its file, its judge and the judge's measured
    errors (false rejects over human-pass cases, false accepts over human-fail cases)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    report: str
    grader: str
    judge_model: str | None = None
    prompt_version: str | None = None
    labels: int = Field(description="Labelled case-trials with a judge verdict")
    human_pass: int
    false_rejects: int
    human_fail: int
    false_accepts: int


class JudgeCorrection(BaseModel):
    """Task success as the judge measured it beside the same rate corrected for the
    judge's measured errors, or why no correction is shown (``reason``): no calibration,
    one for another judge (named by what differs), too few labels, a judge no better than
    chance."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    judge: Rate = Field(description="Task success as the judge's verdicts give it")
    corrected: CorrectedRate | None = Field(
        default=None,
        description="Task success corrected for the judge's measured false-accept and "
        "false-reject rates (case-trials with no verdict count as failed, as in task "
        "success); null when not made",
    )
    reason: str | None = Field(
        default=None, description="Why no correction is made; null when one is"
    )
    calibration: CalibrationUsed | None = Field(
        default=None, description="The calibration applied; null when none applies"
    )


class UnknownBound(BaseModel):
    """A rate's worst and best case over its unknown case-trials (error, missing,
    ungraded): all counted failed, then all counted passed (Manski's bounds)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    unknown: int = Field(description="Case-trials in the denominator that are error, missing "
                         "or ungraded")  # fmt: skip
    worst: Rate
    best: Rate


class UnknownBounds(BaseModel):
    """The headline rates' bounds over their unknown case-trials: each rate whose
    denominator holds some has its bounds; null (or, for slices, left out) when it has
    none."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    task_success: UnknownBound
    answer_coverage: UnknownBound | None = Field(
        default=None,
        description="Answer coverage counting every unknown case-trial not answered, then "
        "answered; null when it has none (or a report too old to count them)",
    )
    answered_accuracy: UnknownBound | None = Field(
        default=None,
        description="Answered accuracy over the answers whose verdict is unknown; null when "
        "it has none (or a report too old to count them)",
    )
    slices: dict[str, UnknownBound] = Field(
        default_factory=dict,
        description="Each slice's task success, for the slices with unknown case-trials",
    )


def rate_bounds(r: Rate, unknown: int, counted: int = 0) -> UnknownBound | None:
    """``r``'s worst and best case when ``unknown`` of its denominator's case-trials are
    unknown, ``counted`` of them in its numerator: all counted failed (the numerator less
    ``counted``), then all passed (that plus ``unknown``), each with its interval at the
    level and by the method of ``r``; None when it has no unknowns (or no denominator).

    Every rate's bounds are this function of its counts.
    """
    if unknown <= 0 or r.denominator == 0:
        return None
    passed = r.numerator - counted
    if not 0 <= counted <= unknown or passed + unknown > r.denominator:
        raise ValueError(f"{unknown} unknowns ({counted} counted) do not fit in {r.numerator}/"
                         f"{r.denominator}")  # fmt: skip
    setting = IntervalSetting(r.confidence, r.method)
    n = r.denominator
    name = r.denominator_name
    worst = rate(passed, n, name, numerator_name=f"{r.numerator_name}, unknowns failed",
                 interval=setting)  # fmt: skip
    best = rate(passed + unknown, n, name, numerator_name=f"{r.numerator_name} or unknown",
                interval=setting)  # fmt: skip
    return UnknownBound(unknown=unknown, worst=worst, best=best)


def unknown_bounds(
    task_success: Rate,
    statuses: StatusCounts,
    *,
    answer_coverage: Rate | None = None,
    answered_accuracy: Rate | None = None,
    answered_unknown: int | None = None,
    slices: Mapping[str, SliceSummary] | None = None,
) -> UnknownBounds | None:
    """The headline rates' worst and best case over their error, missing and ungraded
    case-trials (``rate_bounds`` of each); None when task success has none.

    Task success and each slice's count every unknown case-trial as not passing. Answer
    coverage counts the ``answered_unknown`` answers among them as answered, and answered
    accuracy has them in its denominator as not passing; without that count (a report
    written before it was kept) neither has bounds.
    """
    whole = rate_bounds(task_success, statuses.unknown)
    if whole is None:
        return None
    coverage = accuracy = None
    if answered_unknown is not None and answer_coverage is not None:
        coverage = rate_bounds(answer_coverage, statuses.unknown, answered_unknown)
    if answered_unknown is not None and answered_accuracy is not None:
        accuracy = rate_bounds(answered_accuracy, answered_unknown)
    by_slice = {
        name: found
        for name, sl in (slices or {}).items()
        if (found := rate_bounds(sl.task_success, sl.statuses.unknown)) is not None
    }
    return UnknownBounds(
        task_success=whole,
        answer_coverage=coverage,
        answered_accuracy=accuracy,
        slices=by_slice,
    )


def trials_design_effect(task_success: Rate, trials: TrialSummary | None) -> float:
    """The design effect of task success's interval clustered by case, from each case's
    passing trials of its trials (``trials``' per-case consistency): 1 with one trial per
    case."""
    if trials is None or not trials.consistency:
        return 1.0
    return case_design_effect(
        [c.passed for c in trials.consistency],
        [c.trials for c in trials.consistency],
        IntervalSetting(task_success.confidence, task_success.method),
    )


def judge_correction(
    task_success: Rate,
    statuses: StatusCounts,
    calibration: CalibrationReport | None,
    source: str,
    grader: str,
    problem: str | None = None,
    min_labels: int = MIN_LABELS_EACH,
    design_effect: float = 1.0,
) -> JudgeCorrection:
    """Task success corrected for the measured errors of the judge ``grader`` as the
    calibration report ``calibration`` (read from ``source``) measured them; ``problem``
    says why it does not apply (another judge; no usable report) and refuses the
    correction.

    Only case-trials with a verdict (passed or failed) are corrected; the others stay
    failed, as task success counts them, so the corrected figure is on the same
    denominator as task success. ``design_effect``: the run's part of the interval
    clustered by case, as task success's own interval is (``trials_design_effect``).
    """
    if calibration is None or problem is not None:
        why = problem or "no calibration of this judge is on file"
        return JudgeCorrection(judge=task_success, reason=why)
    used = CalibrationUsed(
        report=source,
        grader=grader,
        judge_model=calibration.judge.get("judge_model"),
        prompt_version=calibration.judge.get("prompt_version"),
        labels=calibration.judged,
        human_pass=calibration.false_rejects.denominator,
        false_rejects=calibration.false_rejects.numerator,
        human_fail=calibration.false_accepts.denominator,
        false_accepts=calibration.false_accepts.numerator,
    )
    verdicts = statuses.passed + statuses.failed
    found = corrected_rate(
        statuses.passed,
        verdicts,
        used.human_pass,
        used.false_rejects,
        used.human_fail,
        used.false_accepts,
        task_success.confidence,
        min_labels,
        design_effect,
    )
    if found.value is None or found.interval is None or task_success.denominator == 0:
        return JudgeCorrection(
            judge=task_success, reason=found.refused or "no case-trials", calibration=used
        )
    share = verdicts / task_success.denominator
    low, high = found.interval
    corrected = CorrectedRate(
        value=found.value * share,
        ci=(low * share, high * share),
        confidence=task_success.confidence,
        denominator_name=task_success.denominator_name,
    )
    return JudgeCorrection(judge=task_success, corrected=corrected, calibration=used)
