"""A stored run's report (``assay report RUN``) gives every rate's bounds over its
unknowns exactly as the run's own report did, in every format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.render import render
from assay.runner import report_for_run, run_suite
from assay.store import RunStore, open_store

CASES = [
    {
        "id": f"C{i}",
        "slice": "odd" if i % 2 else "even",
        "question": f"Question {i}",
        "expected_behavior": "answer",
        "expected_fact": "thirty",
    }
    for i in range(8)
]
SCRIPT = {
    "type": "scripted",
    "default": {"kind": "answer", "fact": "thirty", "text": "30 days"},
    "outcomes": {
        "C1": {"kind": "answer", "fact": "seven"},
        "C2": {"kind": "error", "error_class": "bad_output", "message": "not JSON"},
        "C3": {"kind": "answer", "text": "thirty days, no fact key"},  # ungraded
        "C5": {"kind": "answer", "text": "no fact key either"},  # ungraded
    },
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


@pytest.mark.parametrize("trials", [1, 2])
def test_every_rate_s_bounds_read_back_from_the_store(
    tmp_path: Path, store: RunStore, trials: int
) -> None:
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in CASES) + "\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"dataset: cases.jsonl\ntarget: {json.dumps(SCRIPT)}\ntrials: {trials}\n")
    report = run_suite(suite, store).report
    b = report.unknown_bounds
    assert b is not None and b.answer_coverage is not None and b.answered_accuracy is not None
    assert report.answered_unknown == 2 * trials
    assert (b.answered_accuracy.worst.numerator, b.answered_accuracy.best.numerator) == (
        4 * trials,
        6 * trials,
    )
    assert set(b.slices) == {"even", "odd"}
    assert report.run_id is not None
    stored = report_for_run(store, report.run_id)
    assert stored.unknown_bounds == b
    for fmt in ("json", "text", "markdown", "html", "junit"):
        assert render(report, fmt) == render(stored, fmt), fmt
    answers = f"Unknowns in answered accuracy: {2 * trials} of {7 * trials} substantive answers"
    assert answers in render(stored, "text")
