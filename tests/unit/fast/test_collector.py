"""The cycle collector during a run: collected less often, as it was once the run ends."""

from __future__ import annotations

import ast
import gc
import json
from pathlib import Path
from typing import Any

import pytest

from assay._fast.collector import RUN_THRESHOLD, run_collection
from assay.outcomes import Answer
from assay.runner import run_suite
from assay.store import open_store


def test_a_run_raises_the_young_threshold_and_restores_it(tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text(
        json.dumps(
            {
                "id": "C1",
                "question": "q",
                "expected_behavior": "answer",
                "expected_fact": "f",
                "slice": "s",
            }
        )
        + "\n"
    )
    (tmp_path / "sut_gc_seen.py").write_text(
        "import gc\n"
        "def answer(case):\n"
        "    return {'kind': 'answer', 'text': repr((gc.get_threshold(), gc.get_freeze_count()))}\n"
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget: {type: function, callable: sut_gc_seen:answer}\n"
    )
    before = gc.get_threshold()
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        result = run_suite(suite, store)
        (record,) = store.records(result.run_id)
    finally:
        store.close()
    assert isinstance(record.outcome, Answer) and record.outcome.text is not None
    threshold, frozen = ast.literal_eval(record.outcome.text)
    assert threshold == (max(before[0], RUN_THRESHOLD), *before[1:])
    assert frozen > 0  # what was alive before the run is not rescanned
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_the_threshold_is_restored_when_the_block_fails() -> None:
    before = gc.get_threshold()
    try:
        with run_collection():
            assert gc.get_threshold()[0] >= RUN_THRESHOLD
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_cycles_are_still_collected_during_a_run() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self

    with run_collection():
        gc.collect(0)
        for _ in range(3 * RUN_THRESHOLD):
            Node()  # each one a cycle: only the collector frees it
        alive = sum(isinstance(o, Node) for o in gc.get_objects(0))
    assert alive < RUN_THRESHOLD + 1


def test_a_block_inside_another_leaves_the_collector_to_the_outer_one() -> None:
    before = gc.get_threshold()
    with run_collection():
        frozen = gc.get_freeze_count()
        with run_collection():
            assert gc.get_threshold()[0] >= RUN_THRESHOLD
        assert gc.get_threshold()[0] >= RUN_THRESHOLD  # still the run's
        # what was frozen stays frozen: an unfreeze would empty it (a frozen object that
        # another thread frees leaves the count, so it may shrink by a few)
        assert frozen > 0 and gc.get_freeze_count() > frozen // 2
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_the_prompts_are_rendered_and_the_report_built_inside_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full collection before the first case-trial or while the report is built would
    rescan every object the imports made."""
    seen: list[tuple[str, int]] = []
    from assay.runner import _run

    real_prepare, real_report = _run.prepare_target, _run.report_for_run

    def prepare(*args: Any, **kwargs: Any) -> Any:
        seen.append(("prepare", gc.get_threshold()[0]))
        return real_prepare(*args, **kwargs)

    def report(*args: Any, **kwargs: Any) -> Any:
        seen.append(("report", gc.get_threshold()[0]))
        return real_report(*args, **kwargs)

    monkeypatch.setattr(_run, "prepare_target", prepare)
    monkeypatch.setattr(_run, "report_for_run", report)
    (tmp_path / "cases.jsonl").write_text(
        json.dumps({"id": "C1", "question": "q", "expected_behavior": "abstain", "slice": "s"})
        + "\n"
    )
    (tmp_path / "sut_abstains.py").write_text("def answer(case):\n    return {'kind': 'abstain'}\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget: {type: function, callable: sut_abstains:answer}\n"
    )
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        run_suite(suite, store)
    finally:
        store.close()
    assert [name for name, _ in seen] == ["prepare", "report"]
    assert all(threshold >= RUN_THRESHOLD for _, threshold in seen)
    assert gc.get_freeze_count() == 0
