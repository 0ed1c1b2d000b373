"""Summaries of repeated trials: per-case consistency, flaky cases, and the policy rate."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from assay.grading import CaseResult
from assay.metrics._cluster import clustered_rate
from assay.metrics._former_ci95 import FormerCi95
from assay.metrics._group import group_by
from assay.metrics._intervals import IntervalMethod
from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting
from assay.metrics._trials import TrialPolicy

_SCORE, _TRIALS, _PASSED, _SLICE = map(attrgetter, ("score", "trials", "passed", "slice"))
CLUSTERED = "clustered by case (Korn & Graubard 1998 effective sample size)"


class TrialRate(FormerCi95):
    """Task success under a trial policy: the mean of per-case scores over the cases.

    ``score_sum`` is the sum of per-case scores (a whole number of cases for ``majority``
    and pass^k with k = trials, fractional for ``mean`` and pass@k). The interval treats
    the case as the independent unit, never the K·N trials.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    policy: str
    label: str
    score_sum: float
    cases: int
    denominator_name: str = "cases in the dataset"
    value: float | None
    ci: tuple[float, float] | None
    confidence: float = 0.95
    method: IntervalMethod = "clopper-pearson"
    interval: str = CLUSTERED
    design_effect: float | None = None
    effective_n: float | None = None

    @property
    def na_reason(self) -> str:
        """Why the rate is unavailable, e.g. "no cases in the dataset"."""
        return f"no {self.denominator_name}"


class CaseConsistency(BaseModel):
    """How many of a case's trials passed, and its score under the policy."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    slice: str
    passed: int
    trials: int
    score: float
    missing: int = Field(default=0, description="Trials with no recorded outcome")

    @property
    def flaky(self) -> bool:
        """Some but not all recorded trials passed: a missing trial is no evidence of
        failure, so it never makes a case flaky."""
        return 0 < self.passed < self.trials - self.missing


class TrialSummary(BaseModel):
    """Repeated trials: the stated policy, task success under it, and per-case consistency.

    ``per_trial_interval`` names how the intervals of the per-trial rates in the summary
    (task success over case-trials, coverage, accuracy, slices) were computed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    policy: str
    label: str
    trials: int
    declared: bool = Field(
        default=False,
        description="True when the user or the suite stated the policy: task success under "
        "it is then the headline (and what a bare task_success gate rule reads)",
    )
    task_success: TrialRate
    slices: dict[str, TrialRate] = Field(default_factory=dict)
    consistency: list[CaseConsistency] = Field(default_factory=list)
    flaky: list[str] = Field(default_factory=list)
    passed_counts: dict[str, int] = Field(
        default_factory=dict, description='"passed/trials" -> number of cases, e.g. "3/5": 2'
    )
    per_trial_interval: str = CLUSTERED


def policy_rate(
    cases: Sequence[CaseConsistency],
    policy: TrialPolicy,
    trials: int,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> TrialRate:
    """Task success under ``policy`` over ``cases``, with its case-clustered interval."""
    return _scored_rate(
        list(map(_SCORE, cases)), sum(map(_TRIALS, cases)), policy, trials, interval
    )


def _scored_rate(
    scores: list[float],
    units: int,
    policy: TrialPolicy,
    trials: int,
    interval: IntervalSetting,
) -> TrialRate:
    """``policy_rate`` of cases with these ``scores`` and ``units`` trials in all."""
    resolved = policy.resolved(trials)
    # Every policy is a mean of per-case scores; for ``mean`` this equals passing trials
    # over trials, and the effective sample size is bounded by the trials behind it.
    est = clustered_rate(scores, [1] * len(scores), interval=interval, max_effective=units)
    return TrialRate(
        policy=str(resolved),
        label=resolved.label(trials),
        score_sum=sum(scores),
        cases=len(scores),
        value=None if est is None else sum(scores) / len(scores),
        ci=None if est is None else est.ci,
        confidence=interval.confidence,
        method=interval.method,
        design_effect=None if est is None else est.design_effect,
        effective_n=None if est is None else est.effective_n,
    )


def _consistency(
    case_id: str, trials: Sequence[CaseResult], policy: TrialPolicy
) -> CaseConsistency:
    passed = sum(1 for r in trials if r.status == "passed")
    return CaseConsistency(
        id=case_id,
        slice=trials[-1].case.slice,
        passed=passed,
        trials=len(trials),
        score=policy.case_score(len(trials), passed),
        missing=sum(1 for r in trials if r.status == "missing"),
    )


def summarize_trials(
    graded: Sequence[CaseResult],
    policy: TrialPolicy,
    trials: int,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    declared: bool = False,
) -> TrialSummary:
    """Per-case consistency and task success under ``policy`` (K trials per case);
    ``declared`` says the user stated the policy (it is then the headline)."""
    resolved = policy.resolved(trials)
    consistency = [
        _consistency(cid, items, resolved)
        for cid, items in group_by(graded, lambda r: r.case.id).items()
    ]
    return trial_summary(consistency, resolved, trials, interval=interval, declared=declared)


class CaseScores(NamedTuple):
    """Each case's score under the policy, its trials and its passing trials (in dataset
    order), and the cases' positions by slice (slices in the order they first appear)."""

    scores: list[float]
    units: list[int]
    passed: list[int]
    slices: dict[str, list[int]]


def trial_summary(
    consistency: list[CaseConsistency],
    policy: TrialPolicy,
    trials: int,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    declared: bool = False,
) -> TrialSummary:
    """The trial summary of each case's consistency (in dataset order) under ``policy``
    (K trials per case); ``declared`` says the user stated the policy."""
    scores, units, passed, names = (
        list(map(get, consistency)) for get in (_SCORE, _TRIALS, _PASSED, _SLICE)
    )
    slices: dict[str, list[int]] = {}
    for at, name in enumerate(names):
        slices.setdefault(name, []).append(at)
    return case_trial_summary(
        consistency,
        CaseScores(scores, units, passed, slices),
        [c.id for c in consistency if c.flaky],
        policy,
        trials,
        interval=interval,
        declared=declared,
    )


def case_trial_summary(
    consistency: list[CaseConsistency],
    cases: CaseScores,
    flaky: list[str],
    policy: TrialPolicy,
    trials: int,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    declared: bool = False,
) -> TrialSummary:
    """``trial_summary`` of ``consistency`` given its columns (``cases``) and the ids of
    its flaky cases, as ``trial_summary`` reads them."""
    resolved = policy.resolved(trials)
    scores, units = cases.scores, cases.units
    tally = Counter(zip(cases.passed, units, strict=True))
    counts = {f"{p}/{k}": tally[p, k] for p, k in sorted(tally, key=lambda pk: (-pk[0], pk[1]))}

    def rate_of(at: list[int]) -> TrialRate:
        picked = list(map(scores.__getitem__, at)), sum(map(units.__getitem__, at))
        return _scored_rate(*picked, resolved, trials, interval)

    return TrialSummary(
        policy=str(resolved),
        label=resolved.label(trials),
        trials=trials,
        declared=declared,
        task_success=_scored_rate(scores, sum(units), resolved, trials, interval),
        slices={name: rate_of(at) for name, at in cases.slices.items()},
        consistency=consistency,
        flaky=flaky,
        passed_counts=counts,
    )
