"""Building a ``Report`` from graded case-trials: the one place figures become a report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay._version import __version__
from assay.cases import Dataset, case_hash
from assay.grading import CaseResult
from assay.metrics import IntervalMethod, TrialPolicy, summarize_results
from assay.outcomes import Abstain, Answer
from assay.report._model import (
    CacheSummary,
    CaseRow,
    DatasetInfo,
    GraderInfo,
    Report,
    SyntheticSection,
)


def _row(result: CaseResult, hashes: dict[str, str]) -> CaseRow:
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
        case_hash=hashes.get(case.id) or case_hash(case),
        source_revision=case.source_revision,
        cached_from=_cached_from(result),
    )


def _cached_from(result: CaseResult) -> str | None:
    note = result.record.extra.get("cache") if result.record is not None else None
    if isinstance(note, dict) and note.get("hit") is True:
        return str(note.get("run_id") or "an earlier run")
    return None


def build_report(
    dataset: Dataset,
    graded: Sequence[CaseResult],
    *,
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
    run_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    policy: TrialPolicy | None = None,
    cache_key_version: int | None = None,
) -> Report:
    """The report for ``graded`` (every case-trial of ``dataset``, as ``grade`` returns);
    ``cache_key_version`` when the run used the response cache."""
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
        cases=[_row(r, dataset.case_hashes) for r in graded],
        synthetic=synthetic,
        metadata=metadata or {},
        cache=cache_summary(graded, cache_key_version),
    )


def cache_summary(graded: Sequence[CaseResult], key_version: int | None) -> CacheSummary | None:
    """Case-trials served from the cache and the usage they avoided; None when the run
    used no cache and no record says it was served from one."""
    records = [r.record for r in graded if r.record is not None]
    served = [r for r in records if (r.extra.get("cache") or {}).get("hit") is True]
    if key_version is None and not served:
        return None
    if key_version is None:
        versions = {r.extra["cache"].get("key_version") for r in served}
        key_version = versions.pop() if len(versions) == 1 else None
    usages = [r.usage for r in served if r.usage is not None]
    return CacheSummary(
        key_version=key_version,
        served=len(served),
        case_trials=len(records),
        called=len(records) - len(served),
        input_tokens_avoided=sum(u.input_tokens or 0 for u in usages),
        output_tokens_avoided=sum(u.output_tokens or 0 for u in usages),
    )
