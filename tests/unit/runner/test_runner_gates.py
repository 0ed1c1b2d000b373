"""A library user's run applies the suite's gates, as ``assay run`` does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.runner import run_suite
from assay.store import RunStore, open_store

CASES = [
    {
        "id": f"C{i}",
        "slice": "s",
        "question": f"q{i}",
        "expected_behavior": "answer",
        "expected_fact": "f",
    }
    for i in range(4)
]


def _suite(folder: Path, gates: str) -> Path:
    (folder / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in CASES) + "\n")
    suite = folder / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        "target: {type: scripted, default: {kind: answer, fact: f}, "
        "outcomes: {C0: {kind: abstain}}}\n"
        f"trace: false\n{gates}"
    )
    return suite


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


def test_the_suite_gates_are_applied_to_a_library_run(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, "gates: ['task_success>=0.5', 'task_success>=80%', 'errors==0']\n")
    result = run_suite(suite, store)
    assert [g.rule.text for g in result.gates] == [
        "task_success>=0.5",
        "task_success>=80%",
        "errors==0",
    ]
    assert [g.passed for g in result.gates] == [True, False, True]
    assert not result.gates_passed
    assert result.gates[1].actual == pytest.approx(0.75)


def test_a_suite_without_gates_passes(tmp_path: Path, store: RunStore) -> None:
    result = run_suite(_suite(tmp_path, ""), store)
    assert result.gates == () and result.gates_passed


def test_a_gate_on_a_slice_the_run_lacks_fails_with_the_reason(
    tmp_path: Path, store: RunStore
) -> None:
    result = run_suite(_suite(tmp_path, "gates: 'slice[nope].task_success>=0.5'\n"), store)
    assert not result.gates_passed
    assert "no slice named 'nope'" in result.gates[0].message
