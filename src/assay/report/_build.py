"""Building a ``Report`` from graded case-trials: the one place figures become a report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay._version import __version__
from assay.cases import Dataset, case_hash
from assay.grading import CaseResult, Judgment
from assay.metrics import IntervalMethod, Rate, TrialPolicy, rate, summarize_results
from assay.outcomes import Abstain, Answer
from assay.report._model import (
    CaseRow,
    DatasetInfo,
    GraderInfo,
    JudgeDetail,
    Report,
    SyntheticSection,
)


def _row(result: CaseResult) -> CaseRow:
    outcome = result.record.outcome if result.record is not None else None
    fact = outcome.fact if isinstance(outcome, Answer) else None
    text = outcome.text if isinstance(outcome, Answer | Abstain) else None
    case = result.case
    return CaseRow(
        id=case.id,
        slice=case.slice,
        trial=result.trial,
        synthetic=case.synthetic,
        question=case.prompt,
        expected_behavior=case.expected_behavior,
        expected_fact=case.expected_fact,
        rationale=case.rationale,
        outcome=outcome.kind if outcome is not None else None,
        fact=fact,
        text=text,
        status=result.status,
        reason=result.judgment.reason,
        grader=f"{result.judgment.grader} v{result.judgment.grader_version}",
        case_hash=case_hash(case),
        source_revision=case.source_revision,
        judge=_judge_detail(result.judgment),
    )


def _judge_detail(judgment: Judgment) -> JudgeDetail | None:
    if judgment.grader != "judge":
        return None
    score = int(judgment.score) if judgment.score is not None else None
    return JudgeDetail(score=score, labels=list(judgment.labels))


def build_report(
    dataset: Dataset,
    graded: Sequence[CaseResult],
    *,
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
    run_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    policy: TrialPolicy | None = None,
) -> Report:
    """The report for ``graded`` (every case-trial of ``dataset``, as ``grade`` returns)."""
    summary = summarize_results(graded, confidence=confidence, method=method, policy=policy)
    graders = sorted(
        {(r.judgment.grader, r.judgment.grader_version) for r in graded if r.record}
        - {("assay", "1")}
    )
    synthetic = None
    if summary.synthetic is not None:
        s = summary.synthetic
        synthetic = SyntheticSection(
            total=s.total,
            success=s.success,
            statuses=s.statuses,
            task_success=s.task_success,
            case_ids=[c.id for c in dataset.synthetic],
        )
    revisions = sorted({c.source_revision for c in dataset.cases if c.source_revision})
    return Report.from_summary(
        summary,
        assay_version=__version__,
        run_id=run_id,
        dataset=DatasetInfo(
            name=dataset.name,
            version=dataset.version,
            cases=len(dataset.real),
            source_revisions=revisions,
        ),
        graders=[GraderInfo(name=n, version=v) for n, v in graders],
        cases=[_row(r) for r in graded],
        synthetic=synthetic,
        metadata=metadata or {},
        judge_dimensions=judge_dimensions(graded, confidence, method),
    )


DIMENSIONS = {
    "grounded": ("grounded", "answers rated for grounding"),
    "citations_supported": ("supported", "answers rated for citations"),
}


def judge_dimensions(
    graded: Sequence[CaseResult], confidence: float, method: IntervalMethod
) -> dict[str, Rate]:
    """Each optional judge dimension as its own rate over the real case-trials the judge
    gave a verdict on it (``grounded=yes|no`` labels); absent dimensions are left out."""
    found: dict[str, Rate] = {}
    for key, (numerator_name, denominator_name) in DIMENSIONS.items():
        said = [
            label.split("=", 1)[1]
            for r in graded
            if not r.case.synthetic and r.status in ("passed", "failed")
            for label in r.judgment.labels
            if label.startswith(f"{key}=")
        ]
        if said:
            found[key] = rate(
                said.count("yes"),
                len(said),
                denominator_name,
                numerator_name=numerator_name,
                confidence=confidence,
                method=method,
            )
    return found
