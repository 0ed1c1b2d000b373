"""An async target that blocks the event loop (``time.sleep`` in ``async def``) disables
the loop's own call timeout and Ctrl-C: the watchdog notices and interrupts the call once
it is due (a ``timeout`` error, the run goes on). When it cannot (the target swallows the
interruption, or the loop does not run in the main thread), the run stops as
``interrupted`` with every finished case-trial stored, ready to resume."""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from assay.outcomes import Error
from assay.runner import RunControl, RunResult, run_suite
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


async def stubborn(case):
    if case.id == "C4":
        try:
            time.sleep(30)
        except BaseException:  # swallows the interruption and blocks on
            time.sleep(30)
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


def _suite(app_dir: Path, function: str) -> Path:
    suite = app_dir / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget: {{type: function, callable: blocking_app:{function}}}\n"
        "concurrency: 1\ntimeout_s: 0.3\nretries: 0\ntrace: false\n"
    )
    return suite


def _run(app_dir: Path, function: str, signals: bool) -> tuple[RunResult, str, list[Any]]:
    store = open_store(f"sqlite:///{app_dir / 'runs.db'}")
    try:
        result = run_suite(
            _suite(app_dir, function), store, control=RunControl(handle_signals=signals)
        )
        (info,) = store.list_runs()
        records = sorted(store.records(info.id), key=lambda r: r.key)
    finally:
        store.close()
    return result, info.status, records


@pytest.mark.parametrize(
    ("function", "signals"),
    [("sleeper", True), ("spinner", True), ("sleeper", False), ("spinner", False)],
    ids=["sleep-with-signal-hooks", "busy-with-signal-hooks", "sleep-alone", "busy-alone"],
)
def test_a_call_that_blocks_the_loop_is_interrupted_when_due(
    app_dir: Path, function: str, signals: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    result, status, records = _run(app_dir, function, signals)
    assert status == result.status == "completed"
    assert [r.case_id for r in records] == ["C1", "C2", "C3", "C4", "C5", "C6"]
    blocked = records[3].outcome
    assert isinstance(blocked, Error) and blocked.error_class == "timeout"
    assert blocked.message == (
        "no reply within 0.3 s: the target blocked the event loop and was interrupted"
    )
    assert result.report.statuses.passed == 5
    err = capsys.readouterr().err
    assert f"the target blocking_app:{function} blocked the event loop past its 0.3 s" in err
    assert signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL  # given back


def test_the_signal_s_own_handler_is_given_back_after_the_run(app_dir: Path) -> None:
    def own(signum: int, frame: object) -> None:
        pass

    previous = signal.signal(signal.SIGUSR1, own)
    try:
        result, _, _ = _run(app_dir, "sleeper", True)
        assert signal.getsignal(signal.SIGUSR1) is own
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert result.report.statuses.passed == 5


def test_a_target_that_swallows_the_interruption_stops_the_run(
    app_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result, status, records = _run(app_dir, "stubborn", True)
    assert status == result.status == "interrupted"
    assert [r.key for r in records] == [("C1", 1), ("C2", 1), ("C3", 1)]
    assert result.report.statuses.passed == 3 and result.report.missing == 3
    assert "the event loop was blocked for" in capsys.readouterr().err


def test_a_loop_outside_the_main_thread_stops_the_run_and_says_why(
    app_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found: list[tuple[RunResult, str, list[Any]]] = []
    worker = threading.Thread(target=lambda: found.append(_run(app_dir, "spinner", False)))
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    ((result, status, records),) = found
    assert status == result.status == "interrupted"
    assert [r.key for r in records] == [("C1", 1), ("C2", 1), ("C3", 1)]
    err = capsys.readouterr().err
    assert "cannot interrupt the call: the event loop does not run in the main thread" in err
    assert "the event loop was blocked for" in err
