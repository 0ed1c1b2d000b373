"""Storing an imported run like a native one, so report, compare and view work on it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from assay._version import __version__
from assay.cases import content_hash
from assay.interop._imported import ImportedRun
from assay.report import Report
from assay.runner import new_run_id
from assay.runs import headline, report_for_run
from assay.store import RunInfo, RunStore


def store_import(
    store: RunStore,
    imported: ImportedRun,
    *,
    now: datetime,
    matrix: dict[str, Any] | None = None,
) -> Report:
    """Store ``imported`` as a new run and return its report (statuses as assay counts).

    ``matrix`` is the run's place in a matrix (``metadata["matrix"]``, as ``assay run``
    with variants records it), or None.
    """
    run_id = new_run_id(now)
    started = imported.started_at or now
    metadata: dict[str, Any] = {"imported": {**imported.source.as_metadata(), **imported.extra}}
    if matrix is not None:
        metadata["matrix"] = matrix
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
        metadata=metadata,
    )
    store.create_run(info, imported.dataset.cases)
    store.add_results(run_id, imported.records, imported.judgments)
    report = report_for_run(store, run_id)
    store.finish_run(run_id, imported.status, headline(report))
    return report_for_run(store, run_id)


def store_imports(
    store: RunStore, runs: Sequence[ImportedRun], *, now: datetime
) -> tuple[list[Report], str | None]:
    """Store the runs imported from one file; when they are variants (several promptfoo
    prompt × provider columns), as one matrix whose id is returned beside the reports."""
    # deferred: the matrix runner (its plans and targets), which one imported run never needs
    from assay.runner import new_matrix_id

    names = [run.variant for run in runs]
    if len(runs) < 2 or any(name is None for name in names):
        return [store_import(store, run, now=now) for run in runs], None
    matrix_id = new_matrix_id(now)
    listing = [{"name": run.variant, "overrides": _overrides(run)} for run in runs]
    reports = [
        store_import(
            store,
            run,
            now=now,
            matrix={
                "id": matrix_id,
                "variant": run.variant,
                "index": index,
                "overrides": _overrides(run),
                "variants": listing,
            },
        )
        for index, run in enumerate(runs)
    ]
    return reports, matrix_id


def _overrides(run: ImportedRun) -> dict[str, Any]:
    return run.overrides or {"provider": run.variant}
