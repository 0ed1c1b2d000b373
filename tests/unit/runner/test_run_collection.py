"""The cycle collector during a run: collected less often, as it was once the run ends."""

from __future__ import annotations

import ast
import gc
import json
from pathlib import Path

from assay._collector import RUN_THRESHOLD, run_collection
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
