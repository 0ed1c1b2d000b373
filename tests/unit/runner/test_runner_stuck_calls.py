"""A sync function target that never returns: the call times out, the run ends, and the
stuck thread keeps nothing waiting (neither the run nor the process's exit)."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

from assay.outcomes import Error
from assay.runner import run_suite
from assay.store import open_store

APP = """
import threading

release = threading.Event()
entered = []


def answer(case):
    entered.append(case.id)
    release.wait()  # stuck until the test lets it go
    return {"kind": "abstain"}
"""


def test_a_stuck_sync_call_times_out_and_the_run_still_ends(tmp_path: Path) -> None:
    (tmp_path / "stuck_app.py").write_text(APP)
    case = {"id": "C1", "slice": "s", "question": "q", "expected_behavior": "abstain"}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget: {type: function, callable: stuck_app:answer}\n"
        "timeout_s: 0.2\nretries: 1\ntrace: false\n"
    )
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        result = run_suite(suite, store)  # with a joined worker thread, this never returns
        records = store.records(result.run_id)
    finally:
        store.close()
    app = sys.modules["stuck_app"]
    try:
        assert not app.release.is_set() and app.entered == ["C1", "C1"]  # both still stuck
        (record,) = records
        assert isinstance(record.outcome, Error) and record.outcome.error_class == "timeout"
        assert record.attempts == 2
        stuck = [t for t in threading.enumerate() if t.name == "assay-function-target"]
        assert len(stuck) == 2 and all(t.daemon for t in stuck)
    finally:
        app.release.set()
        sys.modules.pop("stuck_app", None)
