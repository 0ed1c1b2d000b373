"""A function target that raises keeps its traceback (last frames, file:line) in the
record, the JSON report's case row and `assay trace`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunAssay


def test_the_traceback_of_a_raising_function_target_is_kept(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    (tmp_path / "boom.py").write_text(
        "def lookup(key):\n"
        "    table = {}\n"
        "    return table[key]\n"
        "\n"
        "def answer(case):\n"
        "    return lookup(case.id)\n",
        encoding="utf-8",
    )
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "A", "slice": "s", "question": "q?", "expected_behavior": "abstain"}\n',
        encoding="utf-8",
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget: {type: function, callable: boom:answer}\n",
        encoding="utf-8",
    )
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", suite, "--store", store, "-f", "json")
    assert done.returncode == 1, done.stderr  # nothing was graded
    row = json.loads(done.stdout)["cases"][0]
    assert row["reason"] == "error: exception:KeyError: 'A'"
    tb = row["traceback"]
    assert f'{tmp_path / "boom.py"}", line 6, in answer' in tb
    assert f'{tmp_path / "boom.py"}", line 3, in lookup' in tb
    assert tb.rstrip().endswith("KeyError: 'A'")
    run_id = json.loads(done.stdout)["run_id"]
    shown = run_assay("trace", run_id, "A", "--store", store)
    assert shown.returncode == 0, shown.stderr
    assert "traceback (last frames)" in shown.stdout
    assert "line 3, in lookup" in shown.stdout
