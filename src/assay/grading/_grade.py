"""Grading a whole set of results: one ``CaseResult`` per case and trial, none dropped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.cases import Case
from assay.grading._judgment import Grader, Judgment, Status
from assay.outcomes import Error, Record, Results

GRADERLESS = "assay"


@dataclass(frozen=True)
class CaseResult:
    """One case at one trial: its record (None when missing) and the judgment on it."""

    case: Case
    trial: int
    record: Record | None
    judgment: Judgment

    @property
    def status(self) -> Status:
        return self.judgment.status

    @property
    def answered(self) -> bool:
        """True when the outcome is a substantive answer, whatever its fact."""
        return self.record is not None and self.record.outcome.kind == "answer"


def _missing(case: Case, trial: int) -> Judgment:
    return Judgment(
        case_id=case.id,
        trial=trial,
        status="missing",
        reason="no recorded outcome",
        grader=GRADERLESS,
        grader_version="1",
    )


def _errored(case: Case, record: Record) -> Judgment:
    outcome = record.outcome
    if not isinstance(outcome, Error):
        raise TypeError(f"expected an error outcome, got {outcome.kind}")
    detail = ": ".join(p for p in (outcome.error_class, outcome.message) if p) or "no message"
    return Judgment(
        case_id=case.id,
        trial=record.trial,
        status="error",
        reason=f"error: {detail}",
        grader=GRADERLESS,
        grader_version="1",
    )


def judge_record(case: Case, record: Record, grader: Grader) -> Judgment:
    """The judgment on one recorded outcome: ``error`` for an error outcome (no grader is
    asked), otherwise the grader's, and ``ungraded`` with the reason when the grader fails."""
    if record.outcome.kind == "error":
        return _errored(case, record)
    try:
        return grader.grade(case, record)
    except Exception as err:  # a grader failure is ungraded, never a default score
        return Judgment(
            case_id=case.id,
            trial=record.trial,
            status="ungraded",
            reason=f"the grader failed: {type(err).__name__}: {err}",
            grader=str(getattr(grader, "name", type(grader).__name__)),
            grader_version=str(getattr(grader, "version", "?")),
        )


def trial_count(results: Results) -> int:
    """How many trials the results cover: the highest trial index seen, at least 1."""
    return max((r.trial for r in results.records), default=1)


def grade(
    cases: Sequence[Case], results: Results, grader: Grader, trials: int | None = None
) -> list[CaseResult]:
    """Judge every case at every trial in dataset order; absent records become ``missing``.

    Results must already have passed ``check_results``.
    """
    k = trials if trials is not None else trial_count(results)
    by_key = {r.key: r for r in results.records}
    graded: list[CaseResult] = []
    for case in cases:
        for trial in range(1, k + 1):
            record = by_key.get((case.id, trial))
            if record is None:
                judgment = _missing(case, trial)
            else:
                judgment = judge_record(case, record, grader)
            graded.append(CaseResult(case, trial, record, judgment))
    return graded
