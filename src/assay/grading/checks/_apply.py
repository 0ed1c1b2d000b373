"""Scoring every case-trial of a dataset with the composite scorer, none dropped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.cases import Case
from assay.grading._grade import group_trials
from assay.grading._judgment import Status
from assay.grading.checks._recorded import CompositeInputs, RecordedChecks
from assay.grading.checks._scorer import VERDICT_STATUS, CompositeResult, CompositeScorer
from assay.grading.checks._types import CheckResult
from assay.outcomes import Error, Record


@dataclass(frozen=True)
class ScoredCase:
    """One case at one trial: what was recorded and, when it could be scored, the result.

    ``status`` is passed, failed or ungraded from the composite verdict; error when the
    outcome is an error and missing when nothing was recorded (``result`` is None then).
    """

    case: Case
    trial: int
    record: Record | None
    recorded: RecordedChecks | None
    result: CompositeResult | None
    status: Status
    reason: str


def _scored(
    case: Case,
    trial: int,
    record: Record | None,
    recorded: RecordedChecks | None,
    scorer: CompositeScorer,
    given: Mapping[str, CheckResult] | None,
) -> ScoredCase:
    if recorded is not None:
        known = dict(recorded.checks)
        if (
            record is not None
            and not isinstance(record.outcome, Error)
            and not all(n in known for n in scorer.profile.checks if n in scorer.computable)
        ):
            computed = scorer.run_checks(case, record, scorer.computable)
            known = {**computed, **known}
        result = scorer.combine(case.id, known, trial, asserted_only=recorded.asserted_only)
    elif record is None:
        return ScoredCase(case, trial, None, None, None, "missing", "no recorded outcome")
    elif isinstance(record.outcome, Error):
        outcome = record.outcome
        detail = ": ".join(p for p in (outcome.error_class, outcome.message) if p)
        return ScoredCase(
            case, trial, record, None, None, "error", f"error: {detail or 'no message'}"
        )
    else:
        result = scorer.evaluate(case, record, given)
    return ScoredCase(
        case, trial, record, recorded, result, VERDICT_STATUS[result.verdict], result.reason
    )


def composite_all(
    cases: Sequence[Case],
    inputs: CompositeInputs,
    scorer: CompositeScorer,
    trials: int | None = None,
    given: Mapping[tuple[str, int], Mapping[str, CheckResult]] | None = None,
) -> list[ScoredCase]:
    """Score every case at every trial in dataset order.

    Recorded check results are weighed as recorded; free-text outcomes have the checks
    run on them; an error outcome keeps status error and a case with neither is missing.
    Real and synthetic cases each run to their own trial count unless ``trials`` declares
    it. ``given`` holds check results known before scoring (a model judge's verdict) by
    (case id, trial); those checks are not run. Inputs must already have passed
    ``check_composite_inputs``.
    """
    given = given or {}
    records = {r.key: r for r in inputs.records.records}
    recorded = {r.key: r for r in inputs.recorded}
    ks = group_trials(cases, [*records, *recorded], trials)
    return [
        _scored(
            case,
            trial,
            records.get((case.id, trial)),
            recorded.get((case.id, trial)),
            scorer,
            given.get((case.id, trial)),
        )
        for case in cases
        for trial in range(1, ks[case.synthetic] + 1)
    ]
