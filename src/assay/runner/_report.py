"""Rebuilding a stored run's report: stored judgments first, deterministic regrading else."""

from __future__ import annotations

from typing import Any

from assay.cases import Case
from assay.grading import Grader, Judgment, StructuredGrader, grade
from assay.metrics import IntervalMethod, TrialPolicy
from assay.outcomes import Record, Results
from assay.report import Report, build_report
from assay.store import RunInfo, RunStore


class StoredGrader:
    """Returns the judgment stored for a case-trial, grading afresh only when none is."""

    def __init__(self, stored: list[Judgment], fallback: Grader) -> None:
        self.name = fallback.name
        self.version = fallback.version
        self.fallback = fallback
        self.stored = {(j.case_id, j.trial): j for j in stored}

    def grade(self, case: Case, record: Record) -> Judgment:
        found = self.stored.get((case.id, record.trial))
        return found if found is not None else self.fallback.grade(case, record)


def _fallback(info: RunInfo) -> Grader:
    from assay.load import grader_from_provenance

    for entry in info.graders:
        grader = grader_from_provenance(entry)
        if grader is not None:
            return grader
    return StructuredGrader()


def run_metadata(info: RunInfo) -> dict[str, Any]:
    """What a report says about the run it came from (never a secret: configs are redacted)."""
    target = {
        k: v
        for k, v in info.target.items()
        if k in ("type", "model", "url", "callable", "base_url")
    }
    return {
        "run": {
            "status": info.status,
            "started_at": info.started_at.isoformat(),
            "ended_at": info.ended_at.isoformat() if info.ended_at else None,
            "suite": info.suite_path,
            "target": target,
            "target_hash": info.target_hash,
            "git_commit": info.git_commit,
            **({"metadata": info.metadata} if info.metadata else {}),
        }
    }


def trial_policy(info: RunInfo) -> TrialPolicy | None:
    """The policy the run's suite stated for combining trials (None: the default, mean)."""
    if info.trial_policy in ("", "per-trial"):
        return None
    return TrialPolicy.parse(info.trial_policy, info.trials).resolved(info.trials)


def report_for_run(
    store: RunStore,
    run_id: str,
    *,
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
) -> Report:
    """The report of a stored run: every case-trial of the cases as run, missing included."""
    info = store.get_run(run_id)
    dataset = store.load_dataset(info.id)
    records = store.records(info.id)
    grader = StoredGrader(store.judgments(info.id), _fallback(info))
    graded = grade(dataset.cases, Results(tuple(records)), grader, trials=info.trials)
    return build_report(
        dataset,
        graded,
        confidence=confidence,
        method=method,
        run_id=info.id,
        metadata=run_metadata(info),
        policy=trial_policy(info),
        cache_key_version=(info.metadata.get("cache") or {}).get("key_version"),
    )


def headline(report: Report) -> dict[str, Any]:
    """The figures a run listing shows."""
    rate = report.task_success
    return {
        "total": report.total,
        "success": report.success,
        "errors": report.errors,
        "missing": report.missing,
        "task_success": rate.value,
        "task_success_fraction": f"{rate.numerator}/{rate.denominator}",
        "task_success_ci95": list(rate.ci95) if rate.ci95 is not None else None,
        "task_success_confidence": rate.confidence,
    }
