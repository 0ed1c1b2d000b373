"""An async target that blocks the event loop (``time.sleep`` in ``async def``) disables
the call timeout and Ctrl-C: the watchdog notices, says so, and the run stops as
``interrupted`` with every finished case-trial stored, ready to resume."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from assay.runner import RunControl, run_suite
from assay.runner import _run as run_module
from assay.store import open_store

APP = """
import time


async def sleeper(case):
    if case.id == "C4":
        time.sleep(30)  # blocks the event loop: a bug of the target
    return {"kind": "answer", "fact": "f"}


async def spinner(case):
    if case.id == "C4":
        end = time.monotonic() + 30
        while time.monotonic() < end:  # a long computation inside async def
            pass
    return {"kind": "answer", "fact": "f"}
"""


@pytest.fixture
def app_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "blocking_app.py").write_text(APP)
    cases = [
        {"id": f"C{i}", "slice": "s", "question": "q", "expected_behavior": "answer",
         "expected_fact": "f"}
        for i in range(1, 7)
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    original = run_module.options_for

    def short_grace(*args: Any) -> Any:
        return replace(original(*args), blocked_grace_s=2.0)  # generous: the machine may be busy

    monkeypatch.setattr(run_module, "options_for", short_grace)
    yield tmp_path
    sys.modules.pop("blocking_app", None)


@pytest.mark.parametrize(
    ("function", "signals"),
    [("sleeper", True), ("spinner", True), ("spinner", False)],
    ids=["sleep-with-signal-hooks", "busy-with-signal-hooks", "busy-without-hooks"],
)
def test_a_blocked_event_loop_stops_the_run_as_interrupted(
    app_dir: Path, function: str, signals: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = app_dir / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget: {{type: function, callable: blocking_app:{function}}}\n"
        "concurrency: 1\ntimeout_s: 0.3\nretries: 0\ntrace: false\n"
    )
    store = open_store(f"sqlite:///{app_dir / 'runs.db'}")
    try:
        result = run_suite(suite, store, control=RunControl(handle_signals=signals))
        (info,) = store.list_runs()
        keys = sorted(r.key for r in store.records(info.id))
    finally:
        store.close()
    assert info.status == result.status == "interrupted"
    assert result.report.statuses.passed == 3 and result.report.missing == 3
    assert keys == [("C1", 1), ("C2", 1), ("C3", 1)]
    assert "the event loop was blocked" in capsys.readouterr().err
