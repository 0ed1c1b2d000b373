"""A run's budget: no case-trial starts once the next could exceed it; the report lists the
case-trials not run apart from the missing, and every gate fails on the run cut short."""

from __future__ import annotations

import json
from pathlib import Path

from assay.runner import Overrides, run_suite
from assay.runs import report_for_run
from assay.store import open_store


def _suite(folder: Path, n: int = 20, extra: str = "") -> Path:
    cases = [
        {
            "id": f"C{i:02d}",
            "slice": "s",
            "question": f"q{i}",
            "expected_behavior": "answer",
            "expected_fact": "f",
        }
        for i in range(n)
    ]
    (folder / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    suite = folder / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget: {type: scripted, default: {kind: answer, fact: f}}\n"
        f"trace: false\nconcurrency: 4\ngates:\n  - task_success>=0.5\n{extra}"
    )
    return suite


def test_max_calls_stops_starting_case_trials_and_lists_them(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        result = run_suite(_suite(tmp_path, extra="max_calls: 6\n"), store)
        budget = result.report.budget
        assert budget is not None and budget.reached and budget.calls == 6
        assert store.count_records(result.run_id) == 6
        assert len(budget.not_run) == 14 and budget.case_trials == 20
        assert result.report.total == 6 and result.report.missing == 0
        assert not result.gates_passed  # 100% pass, but the run was cut short
        assert "cut short by its budget" in result.gates[0].message
        assert report_for_run(store, result.run_id).budget == budget
    finally:
        store.close()


def test_a_budget_not_reached_passes_and_a_flag_overrides_the_suite(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        suite = _suite(tmp_path, extra="max_calls: 3\n")
        result = run_suite(suite, store, overrides=Overrides(max_calls=100))
        budget = result.report.budget
        assert budget is not None and not budget.reached and budget.not_run == []
        assert budget.max_calls == 100 and result.gates_passed
    finally:
        store.close()


def test_a_run_without_a_budget_has_no_section(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        assert run_suite(_suite(tmp_path), store).report.budget is None
    finally:
        store.close()
