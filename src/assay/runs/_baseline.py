"""The baseline a stored run's ``not_worse_than_baseline(MARGIN)`` gate compares with,
when none is named: the suite's run tagged ``baseline``, else the suite's last completed
run before it on the same dataset version."""

from __future__ import annotations

from assay.gates import BASELINE, Baseline
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.runs._report import report_for_run
from assay.store import RunInfo, RunStore


def suite_baseline(
    store: RunStore, run_id: str, interval: IntervalSetting = DEFAULT_INTERVAL
) -> Baseline:
    """The baseline of stored run ``run_id`` (its report at ``interval``, and which run it
    is and why), or why the run has none."""
    info = store.get_run(run_id)
    suite = info.suite_name
    if suite is None:
        return Baseline.missing(
            f"run {info.id} was not started from a suite file, so no suite run is its "
            "baseline; name one with --baseline RUN_OR_REPORT"
        )
    others = [i for i in store.list_runs() if i.suite_name == suite and i.id != info.id]
    chosen = _tagged(others)
    if chosen is not None:
        named = f"run {chosen.id}, the suite's run tagged {BASELINE}"
    else:
        chosen = _last_completed(others, info)
        if chosen is None:
            return Baseline.missing(
                f"suite {suite!r} has no run tagged {BASELINE} and no completed run before "
                f"{info.id} on this version of its dataset {info.dataset_name!r}; tag one "
                f"with `assay runs tag RUN {BASELINE}`"
            )
        named = f"run {chosen.id}, the suite's last completed run on this dataset version"
    return Baseline(report_for_run(store, chosen.id, interval=interval), named)


def _tagged(runs: list[RunInfo]) -> RunInfo | None:
    """The newest finished run tagged ``baseline`` (None when there is none)."""
    found = [i for i in runs if BASELINE in i.tags and i.status != "running"]
    return max(found, key=lambda i: (i.started_at, i.id), default=None)


def _last_completed(runs: list[RunInfo], run: RunInfo) -> RunInfo | None:
    """The newest completed run started before ``run`` on its dataset version."""
    found = [
        i
        for i in runs
        if i.status == "completed"
        and (i.dataset_name, i.dataset_version) == (run.dataset_name, run.dataset_version)
        and (i.started_at, i.id) < (run.started_at, run.id)
    ]
    return max(found, key=lambda i: (i.started_at, i.id), default=None)
