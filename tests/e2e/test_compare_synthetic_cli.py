"""``assay compare`` leaves synthetic cases out before it pairs anything: report files
scored from results, composite reports and stored runs are never refused over a synthetic
case, and its difference is noted beside it under excluded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.inprocess import run_cli

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"
NOTE = "synthetic case: never counted with real cases (trial 2: trial only in the candidate)"
CASES = [
    {"id": "r1", "slice": "s", "question": "How many days to return an item?",
     "expected_behavior": "answer", "expected_fact": "return_window_30_days"},
    {"id": "s1", "slice": "s", "question": "How many days to return a lamp?",
     "expected_behavior": "answer", "expected_fact": "return_window_30_days",
     "synthetic": True},
]  # fmt: skip


def _lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _answers(
    trials: dict[str, int], wrong: tuple[str, int] | None = None
) -> list[dict[str, object]]:
    return [
        {"id": cid, "trial": t, "kind": "answer",
         "fact": "wrong" if (cid, t) == wrong else "return_window_30_days",
         "text": "Within 30 days." if (cid, t) != wrong else "No idea."}
        for cid, most in trials.items()
        for t in range(1, most + 1)
    ]  # fmt: skip


def _made(*args: str | Path, cwd: Path) -> None:
    done = run_cli(*args, cwd=cwd)
    assert done.returncode == 0, done.stderr


def _compared(base: Path, cand: Path, cwd: Path) -> dict[str, object]:
    done = run_cli("compare", base, cand, "--format", "json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    compared = json.loads(done.stdout)
    assert isinstance(compared, dict)
    return compared


def test_reports_whose_synthetic_case_ran_more_trials_in_one_are_compared(
    tmp_path: Path,
) -> None:
    dataset = _lines(tmp_path / "cases.jsonl", CASES)
    base = _lines(tmp_path / "b.jsonl", _answers({"r1": 2, "s1": 1}))
    cand = _lines(tmp_path / "c.jsonl", _answers({"r1": 2, "s1": 2}, wrong=("r1", 2)))
    _made("score", dataset, base, "-o", tmp_path / "b.json", cwd=tmp_path)
    _made("score", dataset, cand, "-o", tmp_path / "c.json", cwd=tmp_path)
    compared = _compared(tmp_path / "b.json", tmp_path / "c.json", tmp_path)
    assert compared["paired"] == 2
    assert compared["newly_broken"] == ["r1"]
    assert compared["excluded"] == [{"id": "s1", "trial": None, "reason": NOTE}]
    text = run_cli("compare", tmp_path / "b.json", tmp_path / "c.json", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    excluded = text.stdout.split("Excluded (1)")[1]
    assert f" s1    {NOTE}" in excluded  # the whole case, not its trial 1


def test_composite_reports_whose_synthetic_case_ran_more_trials_in_one_are_compared(
    tmp_path: Path,
) -> None:
    dataset = _lines(tmp_path / "cases.jsonl", CASES)
    base = _lines(tmp_path / "b.jsonl", _answers({"r1": 2, "s1": 1}))
    cand = _lines(tmp_path / "c.jsonl", _answers({"r1": 2, "s1": 2}, wrong=("r1", 2)))
    _made("composite", dataset, base, "-o", tmp_path / "b.json", cwd=tmp_path)
    _made("composite", dataset, cand, "-o", tmp_path / "c.json", cwd=tmp_path)
    compared = _compared(tmp_path / "b.json", tmp_path / "c.json", tmp_path)
    assert compared["paired"] == 2
    assert compared["excluded"] == [{"id": "s1", "trial": None, "reason": NOTE}]


def test_stored_runs_whose_datasets_differ_in_a_synthetic_case_alone_are_compared(
    tmp_path: Path,
) -> None:
    shutil.copy(POLICY / "keyword_assistant.py", tmp_path)
    real = [json.loads(line) for line in (POLICY / "policy.jsonl").read_text().splitlines()]
    synthetic = {**real[0], "id": "E1.synthetic", "synthetic": True}
    _lines(tmp_path / "before.jsonl", real)
    _lines(tmp_path / "after.jsonl", [*real, synthetic])
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    ids = []
    for name in ("before", "after"):
        suite = tmp_path / f"{name}.yaml"
        suite.write_text(
            f"dataset: {name}.jsonl\n"
            "target: {type: function, callable: 'keyword_assistant:answer'}\n",
            encoding="utf-8",
        )
        done = run_cli("run", suite, "--store", store, "--format", "json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        ids.append(json.loads(done.stdout)["run_id"])
    done = run_cli("compare", *ids, "--store", store, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    compared = json.loads(done.stdout)
    assert compared["paired"] == len(real)
    assert compared["excluded"] == [
        {
            "id": "E1.synthetic",
            "trial": None,
            "reason": "synthetic case: never counted with real cases (only in the candidate)",
        }
    ]
