"""``assay compare`` on stored run ids: a suite's trial policy, pairing and the config diff."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.inprocess import run_cli

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"


def _assay(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


def _suite(tmp: Path, name: str, model: str, policy: str = "pass^k") -> Path:
    path = tmp / f"{name}.yaml"
    path.write_text(
        "dataset: policy.jsonl\n"
        "target: {type: function, callable: 'keyword_assistant:answer'}\n"
        f"trials: 3\ntrial_policy: {policy}\n"
        f"metadata: {{model: {model}, prompt_version: v1}}\n",
        encoding="utf-8",
    )
    return path


def _run(tmp: Path, suite: Path, store: str) -> str:
    done = _assay("run", suite, "--store", store, "--format", "json", cwd=tmp)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["trial_summary"]["policy"] == "pass^3"
    run_id = report["run_id"]
    assert isinstance(run_id, str)
    return run_id


def test_compare_two_stored_runs(tmp_path: Path) -> None:
    shutil.copy(POLICY / "policy.jsonl", tmp_path)
    shutil.copy(POLICY / "keyword_assistant.py", tmp_path)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    base = _run(tmp_path, _suite(tmp_path, "a", "model-1"), store)
    cand = _run(tmp_path, _suite(tmp_path, "b", "model-2"), store)
    done = _assay(
        "compare", base, cand, "--store", store, "--format", "json",
        "--gate", "no-new-failures", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["baseline"]["run_id"] == base and data["candidate"]["run_id"] == cand
    assert data["paired"] == 18
    assert data["mcnemar"]["unit"] == "cases"
    changed = {d["key"]: (d["baseline"], d["candidate"]) for d in data["config_diff"]}
    assert changed["model"] == ("model-1", "model-2")
    assert "started_at" not in json.dumps(data["config_diff"])
    low, high = data["task_success_delta"]["ci"]
    assert low < 0 < high


def test_unknown_run_id_is_exit_2(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = _assay("compare", "nope", "nada", "--store", store, cwd=tmp_path)
    assert done.returncode == 2
    assert "nope" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_suite_with_an_unknown_trial_policy_is_refused(tmp_path: Path) -> None:
    shutil.copy(POLICY / "policy.jsonl", tmp_path)
    suite = _suite(tmp_path, "bad", "m", policy="best-of-3")
    done = _assay("run", suite, "--store", f"sqlite:///{tmp_path / 'r.db'}", cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.yaml:4: trial_policy: unknown trial policy 'best-of-3'" in done.stderr


def test_stored_runs_name_every_changed_field_of_a_case(tmp_path: Path) -> None:
    shutil.copy(POLICY / "keyword_assistant.py", tmp_path)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    (tmp_path / "edited").mkdir()
    shutil.copy(POLICY / "keyword_assistant.py", tmp_path / "edited")
    shutil.copy(POLICY / "policy.jsonl", tmp_path)
    rows = [json.loads(line) for line in (POLICY / "policy.jsonl").read_text().splitlines()]
    for row in rows:
        if row["id"] == "E1":
            row["accepted_facts"] = ["return_window_1_month"]  # not shown in any report row
    (tmp_path / "edited" / "policy.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    base = _run(tmp_path, _suite(tmp_path, "a", "m"), store)
    cand = _run(tmp_path / "edited", _suite(tmp_path / "edited", "b", "m"), store)
    done = _assay("compare", base, cand, "--store", store, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "E1: case definition differs: accepted_facts changed" in done.stderr
