"""Stopping a run halfway (Ctrl-C, or SIGKILL) and resuming it: every case-trial ends up
recorded exactly once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = 20
TRIALS = 2


def _suite(tmp_path: Path, delay_s: float = 0.1) -> Path:
    lines = [
        json.dumps(
            {
                "id": f"C{i:02d}",
                "slice": "s",
                "question": f"q{i}",
                "expected_behavior": "answer",
                "expected_fact": "f",
            }
        )
        for i in range(CASES)
    ]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        f"target:\n  type: scripted\n  default: {{kind: answer, fact: f, delay_s: {delay_s}}}\n"
        f"concurrency: 2\ntrials: {TRIALS}\n"
    )
    return suite


def _assay(*args: str | Path, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "assay", *map(str, args)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db, timeout=10) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
        except sqlite3.OperationalError:  # tables not created yet
            return 0


def _wait_for_records(db: Path, proc: subprocess.Popen[str], at_least: int) -> None:
    """Poll until the run has stored some records (no timing is asserted)."""
    for _ in range(1200):
        if _count(db) >= at_least or proc.poll() is not None:
            return
        time.sleep(0.05)


def _rows(db: Path) -> tuple[str, str, list[tuple[str, int]]]:
    with sqlite3.connect(db) as conn:
        run_id, status = conn.execute("SELECT id, status FROM runs").fetchone()
        keys = conn.execute("SELECT case_id, trial FROM records").fetchall()
    return run_id, status, keys


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
def test_a_stopped_run_resumes_to_every_case_trial_exactly_once(
    tmp_path: Path, sig: signal.Signals
) -> None:
    suite = _suite(tmp_path)
    db = tmp_path / ".assay" / "assay.db"
    proc = _assay("run", suite, cwd=tmp_path)
    _wait_for_records(db, proc, at_least=6)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)

    run_id, status, keys = _rows(db)
    total = CASES * TRIALS
    assert 0 < len(keys) < total
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err
        assert status == "interrupted"
        assert f"assay run --resume {run_id}" in err
        assert f"run {run_id} (interrupted)" in out
    else:
        assert proc.returncode == -signal.SIGKILL
        assert status == "running"  # nobody was left to mark it

    resumed = _assay("run", "--resume", run_id, "--format", "json", cwd=tmp_path)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    report = json.loads(out)
    assert report["run_id"] == run_id and report["total"] == total
    assert report["statuses"]["passed"] == total and report["missing"] == 0

    _, status, keys = _rows(db)
    assert status == "completed"
    assert sorted(keys) == sorted((f"C{i:02d}", t) for i in range(CASES) for t in (1, 2))


@pytest.mark.parametrize("gap_s", [0.0, 0.05, 0.3])
def test_a_double_ctrl_c_leaves_the_run_interrupted_and_resumable(
    tmp_path: Path, gap_s: float
) -> None:
    suite = _suite(tmp_path)
    db = tmp_path / ".assay" / "assay.db"
    proc = _assay("run", suite, cwd=tmp_path)
    _wait_for_records(db, proc, at_least=4)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(signal.SIGINT)
    time.sleep(gap_s)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    run_id, status, keys = _rows(db)
    assert status == "interrupted"
    assert len(keys) == len(set(keys)) > 0

    resumed = _assay("run", "--resume", run_id, "--format", "json", cwd=tmp_path)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert json.loads(out)["statuses"]["passed"] == CASES * TRIALS


def test_a_second_resume_of_a_run_being_resumed_is_refused(tmp_path: Path) -> None:
    # Slow enough that the resume is still working while two more processes start, even
    # on a loaded machine (each spends seconds importing there).
    suite = _suite(tmp_path, delay_s=1.0)
    db = tmp_path / ".assay" / "assay.db"
    first = _assay("run", suite, cwd=tmp_path)
    _wait_for_records(db, first, at_least=4)
    assert first.poll() is None, "the run ended before it could be stopped"
    first.send_signal(signal.SIGKILL)  # left `running`, claimed by nobody
    first.communicate(timeout=60)
    run_id, status, kept = _rows(db)
    assert status == "running"

    resuming = _assay("run", "--resume", run_id, "--format", "json", cwd=tmp_path)
    _wait_for_records(db, resuming, at_least=len(kept) + 2)
    assert resuming.poll() is None, "the resume ended before a second one could start"
    second = _assay("run", "--resume", run_id, cwd=tmp_path)
    during = _assay("run", "--resume", run_id[:12], cwd=tmp_path)  # a prefix names it too
    _, err = second.communicate(timeout=120)
    assert second.returncode == 2, err
    assert f"run {run_id} is being run by another process" in err and "Traceback" not in err
    _, err = during.communicate(timeout=120)
    assert during.returncode == 2, err

    out, err = resuming.communicate(timeout=120)
    assert resuming.returncode == 0, err
    assert json.loads(out)["statuses"]["passed"] == CASES * TRIALS
    _, status, keys = _rows(db)
    assert status == "completed"
    assert len(keys) == len(set(keys)) == CASES * TRIALS
