"""A suite's ``gates:`` key: checked after ``assay run``; a bad rule stops the run first."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

from tests.inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "policy"


def _suite(tmp_path: Path, gates: str) -> Path:
    for name in ("suite.yaml", "policy.jsonl", "keyword_assistant.py"):
        shutil.copy(POLICY / name, tmp_path / name)
    suite = tmp_path / "suite.yaml"
    suite.write_text(suite.read_text(encoding="utf-8") + gates, encoding="utf-8")
    return suite


def _run(suite: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    return run_cli("run", suite, "--store", store, "-f", "json", cwd=tmp_path)


def test_failing_suite_gate_exits_1_after_the_report(tmp_path: Path) -> None:
    done = _run(_suite(tmp_path, "gates:\n  - task_success>=0.99\n  - errors==0\n"), tmp_path)
    assert done.returncode == 1, done.stderr
    assert '"task_success"' in done.stdout  # the report is still written
    assert "FAIL  task_success>=0.99" in done.stderr and "PASS  errors==0" in done.stderr


def test_passing_suite_gate_exits_0(tmp_path: Path) -> None:
    done = _run(_suite(tmp_path, "gates: ['task_success>=0.5', 'missing==0']\n"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert "gate passed: all 2 rule(s) hold" in done.stderr


def test_bad_gate_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    done = _run(_suite(tmp_path, "gates:\n  - task_sucess>=0.8\n"), tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "suite.yaml:" in done.stderr and 'did you mean "task_success"' in done.stderr
    assert not (tmp_path / "runs.db").exists()


def _forget(db: Path, case_ids: tuple[str, ...]) -> str:
    """Make the stored run look killed halfway: drop these cases' rows, mark it running."""
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
        marks = ",".join("?" * len(case_ids))
        for table in ("records", "judgments", "spans"):
            conn.execute(f"DELETE FROM {table} WHERE case_id IN ({marks})", case_ids)
        conn.execute("UPDATE runs SET status = 'running', ended_at = NULL")
    return str(run_id)


def test_a_resumed_run_applies_the_gates_of_its_stored_suite(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "gates:\n  - task_success>=0.99\n  - missing==0\n")
    first = _run(suite, tmp_path)
    assert first.returncode == 1, first.stderr
    run_id = _forget(tmp_path / "runs.db", ("E4", "E5", "E6"))
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    resumed = run_cli("run", "--resume", run_id, "--store", store, "-f", "json", cwd=tmp_path)
    assert resumed.returncode == 1, resumed.stderr
    assert json.loads(resumed.stdout)["total"] == 6
    assert "FAIL  task_success>=0.99" in resumed.stderr and "PASS  missing==0" in resumed.stderr


def _worse(tmp_path: Path) -> None:
    """Make the suite's assistant miss the defect and custom-item cases."""
    module = tmp_path / "keyword_assistant.py"
    text = module.read_text(encoding="utf-8")
    text = text.replace('if "defect"', 'if "never"').replace('if "custom"', 'if "never"')
    module.write_text(text, encoding="utf-8")


def test_not_worse_than_baseline_compares_with_the_suites_last_completed_run(
    tmp_path: Path,
) -> None:
    suite = _suite(tmp_path, "gates:\n  - not_worse_than_baseline(0.5)\n")
    first = _run(suite, tmp_path)
    assert first.returncode == 1, first.stderr  # no earlier run: fails, never passes silently
    first_id = json.loads(first.stdout)["run_id"]
    assert (
        "FAIL  not_worse_than_baseline(0.5)" in first.stderr
        and f"n/a: suite 'policy-keyword-assistant' has no run tagged baseline and no "
        f"completed run before {first_id}"
        in first.stderr
    )
    second = _run(suite, tmp_path)
    assert second.returncode == 0, second.stderr
    assert "PASS  not_worse_than_baseline(0.5)" in second.stderr
    assert (
        f"(baseline: run {first_id}, the suite's last completed run on this dataset version)"
        in second.stderr
    )
    second_id = json.loads(second.stdout)["run_id"]
    _worse(tmp_path)
    third = _run(suite, tmp_path)
    assert third.returncode == 1, third.stderr
    assert "FAIL  not_worse_than_baseline(0.5)" in third.stderr
    assert "may be worse than the baseline by more than 50.0 points" in third.stderr
    assert f"(baseline: run {second_id}," in third.stderr


def test_not_worse_than_baseline_prefers_the_run_tagged_baseline(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "gates:\n  - not_worse_than_baseline(0.5) allow_na\n")
    first = _run(suite, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "PASS  not_worse_than_baseline(0.5) allow_na" in first.stderr
    assert "(allowed)" in first.stderr
    first_id = json.loads(first.stdout)["run_id"]
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    tagged = run_cli("runs", "tag", first_id, "baseline", "--store", store, cwd=tmp_path)
    assert tagged.returncode == 0, tagged.stderr
    assert _run(suite, tmp_path).returncode == 0
    _worse(tmp_path)
    third = _run(suite, tmp_path)
    assert third.returncode == 1, third.stderr
    assert f"(baseline: run {first_id}, the suite's run tagged baseline)" in third.stderr
