"""``assay run --timeout/--retries/--rpm``: override the suite, are validated, are recorded."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.outcomes import Error
from assay.store import open_store

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def _suite(tmp_path: Path, policy_dir: Path, outcomes: str) -> Path:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {policy_dir / 'policy.jsonl'}\n"
        f"target:\n  type: scripted\n  default: {{kind: abstain}}\n  outcomes: {outcomes}\n"
        "timeout_s: 30\nretries: 5\ntrace: false\n"
    )
    return suite


def _records(store: str, run_id: str) -> dict[str, tuple[str, int]]:
    opened = open_store(store)
    try:
        records = opened.records(run_id)
    finally:
        opened.close()
    return {
        r.case_id: (r.outcome.error_class if isinstance(r.outcome, Error) else "", r.attempts)
        for r in records
    }


def test_timeout_and_retries_override_the_suite(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    outcomes = "{E1: {kind: abstain, delay_s: 20}, E2: {fail: http_5xx}}"
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    args = ("--store", store, "-f", "json", "--ids", "E1,E2,E3", "--rpm", "60000")
    done = run_assay(
        "run", _suite(tmp_path, policy_dir, outcomes), *args, "--timeout", "0.2", "--retries", "1"
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == 2
    assert report["metadata"]["run"]["metadata"]["overrides"] == {
        "timeout_s": 0.2,
        "retries": 1,
        "rpm": 60000.0,
    }
    got = _records(store, report["run_id"])
    # The 20 s call stops at 0.2 s; each failure is tried twice (one retry), not six times.
    assert got == {"E1": ("timeout", 2), "E2": ("http_5xx", 2), "E3": ("", 1)}


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--timeout", "0", "--timeout 0: must be a number more than 0"),
        ("--timeout", "inf", "--timeout inf: must be a number more than 0"),
        ("--retries", "21", "--retries 21: must be a number at least 0 and at most 20"),
        ("--retries", "-1", "--retries -1: must be a number at least 0"),
        ("--rpm", "0", "--rpm 0: must be a number more than 0"),
        ("--concurrency", "0", "--concurrency 0: must be a number at least 1"),
    ],
)
def test_bad_option_values_stop_before_anything_runs(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path, option: str, value: str, message: str
) -> None:
    store = tmp_path / "runs.db"
    suite = _suite(tmp_path, policy_dir, "{}")
    done = run_assay("run", suite, "--store", f"sqlite:///{store}", option, value)
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not store.exists()
