"""Scoring every case-trial of a dataset with the composite scorer, none dropped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.cases import Case
from assay.grading._grade import CaseResult, group_trials
from assay.grading._judgment import Judgment
from assay.grading._rules import rule_judgment
from assay.grading.checks._recorded import CompositeInputs, RecordedChecks
from assay.grading.checks._scorer import VERDICT_STATUS, CompositeResult, CompositeScorer
from assay.grading.checks._types import CheckResult
from assay.outcomes import Error, Record


def scored_case(
    case: Case, record: Record | None, result: CompositeResult, scorer: CompositeScorer
) -> CaseResult:
    """The case-trial ``result`` scored: status from the composite verdict, the verdict's
    one-line reason."""
    judgment = Judgment(
        case_id=case.id,
        trial=result.trial,
        status=VERDICT_STATUS[result.verdict],
        reason=result.reason,
        grader=scorer.name,
        grader_version=scorer.version,
        score=result.score,
    )
    return CaseResult(case, result.trial, record, judgment, result)


def _scored(
    case: Case,
    trial: int,
    record: Record | None,
    recorded: RecordedChecks | None,
    scorer: CompositeScorer,
    given: Mapping[str, CheckResult] | None,
) -> CaseResult:
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
    elif (ruled := rule_judgment(case.id, trial, record)) is not None:
        return CaseResult(case, trial, record, ruled)
    else:
        assert record is not None  # rule_judgment judged a missing record
        result = scorer.evaluate(case, record, given)
    return scored_case(case, record, result, scorer)


def composite_all(
    cases: Sequence[Case],
    inputs: CompositeInputs,
    scorer: CompositeScorer,
    trials: int | None = None,
    given: Mapping[tuple[str, int], Mapping[str, CheckResult]] | None = None,
) -> list[CaseResult]:
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
