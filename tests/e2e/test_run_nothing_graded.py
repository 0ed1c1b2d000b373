"""A run in which every case-trial ended in error is not a success: exit 1, said last."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunAssay


def _suite(tmp_path: Path, default: str) -> Path:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "A", "slice": "s", "question": "q?", "expected_behavior": "abstain"}\n'
        '{"id": "B", "slice": "s", "question": "q?", "expected_behavior": "abstain"}\n',
        encoding="utf-8",
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget: {{type: scripted, default: {default}}}\nretries: 0\n",
        encoding="utf-8",
    )
    return suite


def test_an_all_error_run_exits_1_and_says_nothing_was_graded(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite = _suite(tmp_path, "{fail: http_5xx}")
    done = run_assay("run", suite, "--store", f"sqlite:///{tmp_path / 'a.db'}", "--trials", "2")
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("assay: nothing was graded: all 4 case-trials of run ")
    assert "ended in error; the first: error: http_5xx" in last
    assert "B #2  s      error   error: http_5xx" in done.stdout  # the report is still printed


def test_a_run_with_one_graded_case_trial_is_judged_by_its_gates_alone(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite = _suite(tmp_path, "{kind: abstain}")
    done = run_assay("run", suite, "--store", f"sqlite:///{tmp_path / 'a.db'}")
    assert done.returncode == 0, done.stderr
    assert "nothing was graded" not in done.stderr
