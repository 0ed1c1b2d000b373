"""Grading a whole set of results: one ``CaseResult`` per case and trial, none dropped."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.cases import Case
from assay.grading._judgment import Grader, Judgment, Status
from assay.grading._rules import (
    missing_judgment,
    rule_judgment,
    ungraded_judgment,
)
from assay.outcomes import Record, Results

if TYPE_CHECKING:
    from assay.grading.checks import CompositeResult


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case at one trial: its record (None when missing) and the judgment on it.

    The structured and composite pipelines both give one per case-trial; a composite
    scorer's weighed checks are in ``composite`` (None when the case-trial was not scored:
    missing, error, or graded by another grader).
    """

    case: Case
    trial: int
    record: Record | None
    judgment: Judgment
    composite: CompositeResult | None = None

    @property
    def status(self) -> Status:
        """The judgment's status."""
        return self.judgment.status

    @property
    def reason(self) -> str:
        """The judgment's one-line reason."""
        return self.judgment.reason

    @property
    def answered(self) -> bool:
        """True when the outcome is a substantive answer, whatever its fact."""
        return self.record is not None and self.record.outcome.kind == "answer"


def judge_record(case: Case, record: Record, grader: Grader) -> Judgment:
    """The judgment on one recorded outcome: ``error`` for an error outcome (no grader is
    asked), otherwise the grader's, and ``ungraded`` with the reason when the grader fails."""
    ruled = rule_judgment(case.id, record.trial, record)
    if ruled is not None:
        return ruled
    try:
        return grader.grade(case, record)
    except Exception as err:  # a grader failure is ungraded, never a default score
        return ungraded_judgment(case.id, record.trial, grader, err)


def group_trials(
    cases: Iterable[Case], keys: Iterable[tuple[str, int]], declared: int | None = None
) -> dict[bool, int]:
    """The trial count of real (``False``) and synthetic (``True``) cases, each from its
    own results alone: the highest trial recorded for a case of the group, at least 1, or
    ``declared`` for both when the run declared it.

    Real figures never depend on synthetic rows, so a stray synthetic trial cannot make
    every real case look as if it had missed trials.
    """
    if declared is not None:
        return {False: declared, True: declared}
    synthetic = {c.id: c.synthetic for c in cases}
    counts = {False: 1, True: 1}
    for case_id, trial in keys:
        group = synthetic.get(case_id)
        if group is not None:
            counts[group] = max(counts[group], trial)
    return counts


def grade(
    cases: Sequence[Case], results: Results, grader: Grader, trials: int | None = None
) -> list[CaseResult]:
    """Judge every case at every trial in dataset order; absent records become ``missing``.

    Real and synthetic cases each run to their own trial count (``group_trials``) unless
    ``trials`` declares it. Results must already have passed ``check_results``.
    """
    ks = group_trials(cases, (r.key for r in results.records), trials)
    by_key = {r.key: r for r in results.records}
    graded: list[CaseResult] = []
    for case in cases:
        for trial in range(1, ks[case.synthetic] + 1):
            record = by_key.get((case.id, trial))
            if record is None:
                judgment = missing_judgment(case.id, trial)
            else:
                judgment = judge_record(case, record, grader)
            graded.append(CaseResult(case, trial, record, judgment))
    return graded
