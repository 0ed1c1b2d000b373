"""The stored runs as a dataframe (``assay.runs_frame``): one row per run, with its suite,
dataset version, configuration hash, headline rate, interval and tags; the columns are
documented in docs/notebooks.md."""

from __future__ import annotations

from typing import Any

from assay._frames import Backend, FrameColumn, make_frame
from assay.store import RunInfo, RunStore

RUN_COLUMNS: tuple[FrameColumn, ...] = (
    FrameColumn("run_id", "str", "the run's id"),
    FrameColumn("name", "str", "the run's name (assay run --name); null when unnamed"),
    FrameColumn("started_at", "datetime", "when the run started (UTC)"),
    FrameColumn("ended_at", "datetime", "when it ended (UTC); null while running"),
    FrameColumn("status", "str", "running, completed, interrupted or failed"),
    FrameColumn("suite", "str", "the suite's name (or its file's stem); null without one"),
    FrameColumn("dataset_name", "str", "the dataset's name"),
    FrameColumn("dataset_version", "str", "the dataset's content hash"),
    FrameColumn("config_hash", "str", "the target configuration's hash"),
    FrameColumn("trials", "int", "trials per case"),
    FrameColumn("trial_policy", "str", "how trials make a case's verdict"),
    FrameColumn("total", "int", "real case-trials in the run's report"),
    FrameColumn(
        "task_success",
        "float",
        "the headline rate (under the trial policy when "
        "the suite declared one); null when not recorded or n/a",
    ),
    FrameColumn("task_success_fraction", "str", "the headline rate's fraction, e.g. 2/6"),
    FrameColumn("ci_low", "float", "the headline interval's lower bound"),
    FrameColumn("ci_high", "float", "the headline interval's upper bound"),
    FrameColumn("confidence", "float", "the interval's confidence level"),
    FrameColumn("tags", "str", "the run's tags, comma-separated (assay runs tag)"),
)
"""The columns of ``runs_frame``, in order."""


def _row(info: RunInfo) -> dict[str, Any]:
    figures = info.summary or {}
    interval = figures.get("task_success_ci95") or (None, None)
    return {
        "run_id": info.id,
        "name": info.name,
        "started_at": info.started_at,
        "ended_at": info.ended_at,
        "status": info.status,
        "suite": info.suite_name,
        "dataset_name": info.dataset_name,
        "dataset_version": info.dataset_version,
        "config_hash": info.target_hash,
        "trials": info.trials,
        "trial_policy": info.trial_policy,
        "total": figures.get("total"),
        "task_success": figures.get("task_success"),
        "task_success_fraction": figures.get("task_success_fraction"),
        "ci_low": interval[0],
        "ci_high": interval[1],
        "confidence": figures.get("task_success_confidence"),
        "tags": ",".join(info.tags),
    }


def runs_frame(store: RunStore, suite: str | None = None, backend: Backend = "pandas") -> Any:
    """Every stored run (only ``suite``'s when given), newest first, as a pandas or polars
    DataFrame (``RUN_COLUMNS``); each backend is an optional extra
    (``pip install 'assay[pandas]'``, ``assay[polars]``)."""
    rows = [_row(i) for i in store.list_runs() if suite is None or i.suite_name == suite]
    values = {c.name: [row[c.name] for row in rows] for c in RUN_COLUMNS}
    return make_frame(RUN_COLUMNS, values, backend, "runs_frame")


__all__ = ["RUN_COLUMNS", "runs_frame"]
