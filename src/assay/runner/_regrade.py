"""Re-judging a stored run's recorded answers with another grader, without calling the
target again: a new run, linked to the old one, that can itself be resumed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from assay._version import __version__
from assay.errors import AssayConfigError
from assay.grading import Judgment
from assay.grading.judge import JudgeGrader
from assay.outcomes import Record
from assay.runner._judging import JudgeRunner, judge_all
from assay.runner._options import Timing
from assay.runner._provenance import new_run_id, package_versions
from assay.runner._run import RunResult
from assay.store import RunInfo, RunStore
from assay.stored._report import headline, report_for_run, run_metadata

REGRADE_KEY = "regrade_of"


def _new_run(source: RunInfo, grader: JudgeGrader) -> RunInfo:
    from assay.load import grader_provenance

    now = datetime.now(UTC)
    return RunInfo(
        id=new_run_id(now),
        started_at=now,
        suite_path=source.suite_path,
        suite=source.suite,
        dataset_name=source.dataset_name,
        dataset_version=source.dataset_version,
        target=source.target,
        target_hash=source.target_hash,
        graders=[grader_provenance(grader)],
        trials=source.trials,
        trial_policy=source.trial_policy,
        assay_version=__version__,
        packages=package_versions(),
        metadata={**source.metadata, REGRADE_KEY: source.id},
    )


def regrade_run(
    store: RunStore,
    run_id: str,
    grader: JudgeGrader,
    *,
    resume: str | None = None,
    timing: Timing | None = None,
) -> RunResult:
    """Judge every recorded outcome of run ``run_id`` into a new run (or, with ``resume``,
    the outcomes a previous, interrupted regrade of it has not judged yet)."""
    source = store.get_run(run_id)
    dataset = store.load_dataset(source.id)
    records = store.records(source.id)
    if resume is not None:
        target = store.get_run(resume)
        if target.metadata.get(REGRADE_KEY) != source.id:
            raise AssayConfigError(
                f"--resume {resume}: run {target.id} is not a regrade of run {source.id}"
            )
        done = store.recorded_keys(target.id)
        store.set_status(target.id, "running")
    else:
        target = _new_run(source, grader)
        store.create_run(target, dataset.cases)
        done = set()
    by_id = {c.id: c for c in dataset.cases}
    pending = [(by_id[r.case_id], r) for r in records if r.key not in done and r.case_id in by_id]
    by_key: dict[tuple[str, int], Record] = {r.key: r for _, r in pending}
    written = 0

    def write(judgment: Judgment) -> None:
        nonlocal written
        record = by_key[(judgment.case_id, judgment.trial)]
        store.add_results(target.id, [record], [judgment])
        written += 1

    status = "failed"
    try:
        asyncio.run(judge_all(JudgeRunner(grader, timing), pending, write))
        status = "completed"
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        report = report_for_run(store, target.id)
        store.finish_run(target.id, status, headline(report))
        ended: dict[str, Any] = run_metadata(store.get_run(target.id))
        report = report.model_copy(update={"metadata": ended})
    return RunResult(target.id, status, report, written, len(done))
