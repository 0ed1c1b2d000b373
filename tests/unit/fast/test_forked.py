"""``Child.start``, the one place a process is forked: the forked process runs a function
and exits with what it returns, its work is trusted only on a clean exit, each side holds
only its own ends of the pipes, and a process is never left behind."""

from __future__ import annotations

import io
import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from assay._fast.forked import Child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


def _started(work: Child | None) -> Child:
    assert work is not None
    return work


def _raises() -> int:
    raise ValueError("failed")


def _exits() -> int:
    raise SystemExit(0)


@pytest.mark.parametrize(
    ("work", "trusted"),
    [(lambda: 0, True), (lambda: 3, False), (_raises, False), (_exits, False)],
)
def test_only_a_clean_exit_is_trusted(work: Callable[[], int], trusted: bool) -> None:
    child = _started(Child.start(work))
    assert child.reaped() is trusted
    assert child.reaped() is False  # reaped once


def test_what_the_process_wrote_is_read_once_it_has_ended(tmp_path: Path) -> None:
    with (tmp_path / "out").open("w+b") as out:

        def work() -> int:
            out.write(b"made there")
            out.flush()
            return 0

        assert _started(Child.start(work)).reaped()
        out.seek(0)
        assert out.read() == b"made there"


def test_each_side_keeps_only_its_own_ends_of_a_pipe() -> None:
    """Here, the read end is closed once the process is started; there, the write end is
    closed before the work: closing it here is then the end of the pipe for the process
    (else it would wait for more)."""
    read, write = os.pipe()

    def work() -> int:
        said = b""
        while select.select([read], [], [], 5)[0]:
            part = os.read(read, 10)
            if not part:
                return 0 if said == b"said" else 5
            said += part
        return 4  # no end: the write end is open here too

    child = _started(Child.start(work, ours=[write], theirs=[read]))
    with pytest.raises(OSError):
        os.fstat(read)  # closed here
    os.write(write, b"said")
    os.close(write)
    assert child.reaped()


def test_a_process_that_cannot_be_forked_closes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> int:
        raise BlockingIOError("no more processes")

    monkeypatch.setattr(os, "fork", refused)
    read, write = os.pipe()
    try:
        assert Child.start(lambda: 0, ours=[write], theirs=[read]) is None
        os.fstat(read)
        os.fstat(write)
    finally:
        os.close(read)
        os.close(write)


def test_stopping_ends_and_reaps_the_process() -> None:
    def sleeps() -> int:
        time.sleep(60)
        return 0

    child = _started(Child.start(sleeps))
    pid = child.pid
    assert pid is not None
    child.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no process of that id is left
    assert child.reaped() is False
    child.stop()  # once stopped, nothing left to stop


def test_what_was_printed_before_the_fork_is_printed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (tmp_path / "stdout").open("w+b") as raw:
        shown = io.TextIOWrapper(raw, encoding="utf-8")
        monkeypatch.setattr(sys, "stdout", shown)
        print("before", end="")

        def work() -> int:
            print(" there", end="")
            sys.stdout.flush()
            return 0

        assert _started(Child.start(work)).reaped()
        shown.flush()
        raw.seek(0)
        assert raw.read() == b"before there"
        shown.detach()
