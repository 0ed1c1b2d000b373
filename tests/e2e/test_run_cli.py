"""``assay run``, ``assay runs``, ``assay report`` and ``assay init`` through the real CLI."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.inprocess import run_cli

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def _store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.db'}"


def test_run_prints_the_run_id_and_report_and_stores_it(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    store = _store(tmp_path)
    done = run_assay("run", policy_dir / "suite.yaml", "--store", store)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("run ") and first.endswith("(completed)")
    run_id = first.split()[1]
    assert "Task success            5/6" in done.stdout
    assert "E6" in done.stdout  # the one failure is listed with its reason

    listed = run_assay("runs", "--store", store, "--format", "json")
    rows = json.loads(listed.stdout)
    assert [r["id"] for r in rows] == [run_id]
    assert rows[0]["status"] == "completed" and rows[0]["task_success_fraction"] == "5/6"
    assert rows[0]["target"] == "function:keyword_assistant:answer"

    shown = run_assay("report", run_id[:15], "--store", store, "--format", "json")
    report = json.loads(shown.stdout)
    assert report["run_id"] == run_id
    assert (report["task_success"]["numerator"], report["task_success"]["denominator"]) == (5, 6)
    assert report["metadata"]["run"]["status"] == "completed"


def test_run_json_is_pure_json_with_the_run_id(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    done = run_assay(
        "run",
        policy_dir / "suite.yaml",
        "--store",
        _store(tmp_path),
        "--format",
        "json",
        "--trials",
        "2",
        "--slice",
        "standard,missing",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["run_id"] and report["trials"] == 2
    assert report["total"] == 8  # four selected cases × two trials
    assert {row["id"] for row in report["cases"]} == {"E1", "E3", "E4", "E5"}


def test_selection_by_ids_and_limit(run_assay: RunAssay, policy_dir: Path, tmp_path: Path) -> None:
    store = _store(tmp_path)
    by_ids = run_assay(
        "run", policy_dir / "suite.yaml", "--store", store, "--ids", "E2,E6", "--format", "json"
    )
    assert [c["id"] for c in json.loads(by_ids.stdout)["cases"]] == ["E2", "E6"]
    limited = run_assay(
        "run", policy_dir / "suite.yaml", "--store", store, "--limit", "3", "--format", "json"
    )
    assert [c["id"] for c in json.loads(limited.stdout)["cases"]] == ["E1", "E2", "E3"]
    unknown = run_assay("run", policy_dir / "suite.yaml", "--store", store, "--ids", "E66")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert 'did you mean "E6"' in unknown.stderr


def test_a_bad_suite_is_a_located_error_and_nothing_runs(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {policy_dir / 'policy.jsonl'}\ntarget: {{type: scripted}}\nretrys: 3\n"
    )
    done = run_assay("run", suite, "--store", _store(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert f'{suite}:3: unknown field "retrys" (did you mean "retries"?)' in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_run_id_suggests_the_closest(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    store = _store(tmp_path)
    done = run_assay("run", policy_dir / "suite.yaml", "--store", store, "--format", "json")
    run_id = json.loads(done.stdout)["run_id"]
    wrong = run_id[:-1] + ("0" if run_id[-1] != "0" else "1")
    shown = run_assay("report", wrong, "--store", store)
    assert shown.returncode == 2 and f'did you mean "{run_id}"' in shown.stderr


def test_init_writes_a_starter_that_runs_and_never_overwrites(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    target = tmp_path / "evals"
    made = run_assay("init", target)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in target.iterdir()) == [
        "assistant.py",
        "dataset.jsonl",
        "suite.yaml",
    ]
    ran = run_assay("run", target / "suite.yaml", "--store", _store(tmp_path), "--format", "json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["total"] == 3
    (target / "suite.yaml").write_text("# mine\n")
    again = run_assay("init", target)
    assert again.returncode == 0
    assert (target / "suite.yaml").read_text() == "# mine\n"
    assert "not overwritten" in again.stderr


def test_the_store_can_come_from_assay_store(policy_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.db"
    env = {"ASSAY_STORE": str(db), "COLUMNS": "200"}

    def assay(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, cwd=tmp_path, env=env)

    ran = assay("run", policy_dir / "suite.yaml", "--ids", "E1", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    run_id = json.loads(ran.stdout)["run_id"]
    assert db.exists() and not (tmp_path / ".assay").exists()
    listed = assay("runs")
    assert run_id in listed.stdout and "completed" in listed.stdout
    assert "1/1 (100.0%)" in listed.stdout


def test_a_bad_span_limit_in_the_environment_is_bad_input_and_nothing_runs(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "C1", "slice": "s", "question": "q", "expected_behavior": "answer", '
        '"expected_fact": "f"}\n'
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget:\n  type: scripted\n  default: {kind: answer, fact: f}\n"
    )
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    bad = {"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "abc"}
    done = run_assay("run", suite, "--store", store, cwd=tmp_path, env=bad)
    assert done.returncode == 2, done.stderr
    assert "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT must be a non-negative integer" in done.stderr
    assert "Traceback" not in done.stderr
    assert "no stored runs" in run_assay("runs", "--store", store, cwd=tmp_path).stdout
    # Without tracing the limits are not read, and the run goes ahead.
    untraced = run_assay("run", suite, "--store", store, "--no-trace", cwd=tmp_path, env=bad)
    assert untraced.returncode == 0, untraced.stderr
