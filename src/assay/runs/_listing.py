"""The stored runs as ``assay runs`` lists them: one JSON row per run, read from its
record (no record or judgment is read) and, for a run judged by a model judge, whether the
calibration its suite names applies to that judge."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.render import run_split
from assay.report import RunListing
from assay.runs._calibration import calibration_state
from assay.store import RunInfo


def run_listing(runs: Sequence[RunInfo]) -> RunListing:
    """``runs`` (newest first, as ``RunStore.list_runs`` gives them) as a listing."""
    return RunListing(tuple(_row(info) for info in runs))


def _target_label(target: dict[str, Any]) -> str:
    kind = str(target.get("type", "?"))
    detail = target.get("model") or target.get("callable") or target.get("url")
    return f"{kind}:{detail}" if detail else kind


def _row(info: RunInfo) -> dict[str, Any]:
    summary = info.summary or {}
    value = summary.get("task_success")
    return {
        "id": info.id,
        "started_at": info.started_at.isoformat(timespec="seconds"),
        "suite": Path(info.suite_path).name if info.suite_path else None,
        "suite_name": info.suite_name,
        "name": info.name,
        "tags": info.tags,
        "dataset": info.dataset_name,
        "dataset_version": info.dataset_version,
        "target": _target_label(info.target),
        "split": info.metadata.get("split"),
        "heldout_run": info.metadata.get("heldout_runs"),
        "split_label": run_split(info.metadata),
        "trials": info.trials,
        "status": info.status,
        "task_success": value,
        "task_success_fraction": summary.get("task_success_fraction"),
        "task_success_ci": summary.get("task_success_ci95"),
        # Its former name, written until 0.3.0 (docs/running.md).
        "task_success_ci95": summary.get("task_success_ci95"),
        "task_success_confidence": summary.get("task_success_confidence"),
        "task_success_policy": summary.get("task_success_policy"),
        "per_trial_task_success_fraction": summary.get("per_trial_task_success_fraction"),
        "case_trials": summary.get("case_trials"),
        "usage_reported": summary.get("usage_reported"),
        "input_tokens": summary.get("input_tokens"),
        "output_tokens": summary.get("output_tokens"),
        "cost_usd": summary.get("cost_usd"),
        "latency_p95_s": summary.get("latency_p95_s"),
        "cached": summary.get("cached") or 0,
        "cost_avoided_usd": summary.get("cost_avoided_usd"),
        "calibration": calibration_state(info),
    }
