"""Storing an imported run like a native one, so report, compare and view work on it."""

from __future__ import annotations

from datetime import UTC, datetime

from assay.interop._imported import ImportedRun
from assay.report import Report
from assay.store import RunInfo, RunStore


def store_import(store: RunStore, imported: ImportedRun, *, now: datetime) -> Report:
    """Store ``imported`` as a new run and return its report (statuses as assay counts)."""
    from assay import __version__
    from assay.cases import content_hash
    from assay.runner import headline, report_for_run
    from assay.runner._provenance import new_run_id

    run_id = new_run_id(now)
    started = imported.started_at or now
    info = RunInfo(
        id=run_id,
        started_at=started if started.tzinfo else started.replace(tzinfo=UTC),
        status="running",
        dataset_name=imported.dataset.name,
        dataset_version=imported.dataset.version,
        target=imported.target,
        target_hash=content_hash(imported.target),
        graders=[imported.grader],
        trials=imported.trials,
        assay_version=__version__,
        metadata={"imported": {**imported.source.as_metadata(), **imported.extra}},
    )
    store.create_run(info, imported.dataset.cases)
    store.add_results(run_id, imported.records, imported.judgments)
    report = report_for_run(store, run_id)
    store.finish_run(run_id, imported.status, headline(report))
    return report_for_run(store, run_id)
