"""A real ``assay run`` of an ``async`` target that blocks the event loop inside a C call
(``time.sleep``, a lock's acquire, a socket read) for an hour: the call timeout still ends
that call, and Ctrl-C or SIGTERM still stops the run within seconds."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.outcomes import Answer, Error
from assay.store import open_store

APP = """
import socket
import threading
import time

ANSWER = {"kind": "answer", "fact": "f"}


async def sleeps(case):
    if case.id.startswith("B"):
        time.sleep(3600)
    return ANSWER


async def waits_on_a_lock(case):
    if case.id.startswith("B"):
        lock = threading.Lock()
        lock.acquire()
        lock.acquire()  # never given back
    return ANSWER


async def reads_a_socket(case):
    if case.id.startswith("B"):
        mine, theirs = socket.socketpair()
        mine.recv(1)  # the other end never writes
    return ANSWER
"""

TARGETS = ["sleeps", "waits_on_a_lock", "reads_a_socket"]


def _suite(tmp_path: Path, function: str, timeout: str) -> Path:
    (tmp_path / "blocking_app.py").write_text(APP)
    cases = [
        {"id": i, "slice": "s", "question": "q", "expected_behavior": "answer",
         "expected_fact": "f"}
        for i in ("A1", "B1", "A2")
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        f"target: {{type: function, callable: blocking_app:{function}}}\n"
        f"concurrency: 1\nretries: 0\ntrace: false\n{timeout}"
    )
    return suite


def _start(suite: Path) -> subprocess.Popen[str]:
    store = f"sqlite:///{suite.parent / 'runs.db'}"
    return subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(suite), "--store", store],
        cwd=suite.parent,
        env={**os.environ, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stored(db: Path) -> tuple[str, dict[str, object]]:
    store = open_store(f"sqlite:///{db}")
    try:
        (info,) = store.list_runs()
        return info.status, {r.case_id: r.outcome for r in store.records(info.id)}
    finally:
        store.close()


def _run_started(db: Path) -> bool:
    if not db.exists():
        return False
    try:
        with sqlite3.connect(db, timeout=10) as conn:
            return conn.execute("SELECT status FROM runs").fetchone() == ("running",)
    except sqlite3.OperationalError:  # the store is being made: no run yet
        return False


@pytest.mark.parametrize("function", TARGETS)
def test_the_call_timeout_ends_a_call_that_blocks_the_event_loop(
    tmp_path: Path, function: str
) -> None:
    suite = _suite(tmp_path, function, "timeout_s: 1\n")
    proc = _start(suite)
    try:
        started = time.monotonic()
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - started
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    status, outcomes = _stored(tmp_path / "runs.db")
    assert status == "completed"
    assert isinstance(outcomes["A1"], Answer) and isinstance(outcomes["A2"], Answer)
    blocked = outcomes["B1"]
    assert isinstance(blocked, Error) and blocked.error_class == "timeout"
    assert "no reply within 1 s" in blocked.message
    assert "blocked the event loop" in blocked.message
    assert f"blocking_app:{function}" in err
    assert took < 30  # an hour's block, ended by the 1 s timeout (start-up takes seconds)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_a_run_whose_target_blocks_the_event_loop(
    tmp_path: Path, signum: signal.Signals
) -> None:
    suite = _suite(tmp_path, "sleeps", "")  # the default timeout: a minute
    db = tmp_path / "runs.db"
    proc = _start(suite)
    try:
        deadline = time.monotonic() + 60
        started = False
        while not started and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
            started = _run_started(db)
        assert started, proc.stderr.read() if proc.poll() is not None and proc.stderr else ""
        time.sleep(2)  # A1 answered (held in the write buffer); B1 blocks the loop
        proc.send_signal(signum)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 130, err
    assert took < 10
    status, outcomes = _stored(db)
    assert status == "interrupted"
    assert list(outcomes) == ["A1"] and isinstance(outcomes["A1"], Answer)
    assert "blocking_app:sleeps has blocked the event loop" in err
    assert "Traceback" not in err
    assert "missing" in out  # the report so far: B1 and A2 never ran
