"""Work a forked process does on the other core while this one does its own share.

What it saves: the wall time of rendering a large stored run's report (JSON, HTML,
JUnit), measured in bench/RESULTS.md, section ``speed_tricks``, and of ``assay score`` on
a large dataset (its results read aside, its cases scored by two processes).

The one place that forks: ``Child.start`` runs a function in a forked process, which
exits with what the function returns, and ``Child`` waits for it or stops it. What the
process wrote is trusted only when it exited with 0: anything else (an exception, a
signal, a process that could not be started) gives nothing back, and the caller does
that work itself, which then fails, if it does, the usual way and with the usual message.

``Forked`` is such a process making items: it writes each one to a temporary file,
pickled; once it has ended, this process reads the items back in order. This process
may also send it one request once it has started (``Forked.ask``): what the items are to
be made of, known only later.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import select
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Generic, NamedTuple, TypeVar

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Forked(Generic[T]):
    """Items made by a forked process from the moment it is started; ``items`` waits for
    it. Close it (a ``with`` block) so that the process never outlives the caller."""

    def __init__(self, child: Child, out: IO[bytes], asks: int) -> None:
        self._child = child
        self._out = out
        self._asks: int | None = asks

    @classmethod
    def start(cls, make: Callable[[Request], Iterable[T] | Texts]) -> Forked[T] | None:
        """Fork a process that makes ``make(request)``'s items (on Linux, with a second
        core; read back by ``items``, or by ``written`` when they are ``Texts``),
        ``request`` what ``ask`` sends it; None when there is no such process to
        start, or when this one runs other threads (a lock one of them holds would never
        be released in the fork)."""
        import threading

        if not sys.platform.startswith("linux") or cores() < 2 or threading.active_count() > 1:
            return None
        import tempfile

        try:
            out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            asked, asks = os.pipe()
        except OSError:
            return None
        child = Child.start(functools.partial(_made, make, asked, out), [asks], [asked])
        if child is None:
            out.close()
            os.close(asked)
            os.close(asks)
            return None
        return cls(child, out, asks)

    def ask(self, request: object) -> bool:
        """Send the process its request (once); False when it cannot be sent (the
        request does not pickle, the process has ended)."""
        asks, self._asks = self._asks, None
        if asks is None:
            return False
        data = pickled(request)
        if data is None:
            os.close(asks)
            return False
        return send(asks, data)

    def items(self) -> Iterator[T] | None:
        """The items, read back as they are iterated, when the process made every one;
        None otherwise (then nothing is read)."""
        if not self._child.reaped():
            return None
        self._out.seek(0)
        return read_items(self._out)

    def written(self) -> IO[bytes] | None:
        """The file the process wrote its texts (``Texts``) to, from its start, when it
        made every one; None otherwise."""
        if not self._child.reaped():
            return None
        self._out.seek(0)
        return self._out

    def close(self) -> None:
        """Stop the process if it is still at work, and drop what it wrote."""
        if self._asks is not None:
            os.close(self._asks)
            self._asks = None
        self._child.stop()
        self._out.close()

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Child:
    """A forked process, until it is reaped (once)."""

    def __init__(self, pid: int) -> None:
        self.pid: int | None = pid

    @classmethod
    def start(
        cls, work: Callable[[], int], ours: Iterable[int] = (), theirs: Iterable[int] = ()
    ) -> Child | None:
        """Fork a process that runs ``work`` and exits with what it returns (with 1,
        saying nothing, when it raises anything); None, having closed nothing, when none
        could be forked. ``ours``: the file descriptors only this process uses (the
        ends of pipes it writes or reads), closed in the forked one before ``work``;
        ``theirs``: those only the forked process uses, closed here once it is started
        (so that either side sees the end of a pipe once the other is gone). A file
        both use (a temporary file the forked process writes, read here once it has
        ended) is in neither."""
        ours, theirs = tuple(ours), tuple(theirs)
        for stream in (sys.stdout, sys.stderr):  # else the fork may write it out again
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.flush()
        try:
            pid = os.fork()
        except OSError:
            return None
        if pid == 0:  # pragma: no cover - the forked process, measured by its work
            status = 1
            try:
                for fd in ours:
                    os.close(fd)
                status = work()
            finally:
                os._exit(status)
        for fd in theirs:
            os.close(fd)
        return cls(pid)

    def reaped(self) -> bool:
        """Wait for it to end; whether it exited with 0 (False once reaped before)."""
        pid, self.pid = self.pid, None
        if pid is None:
            return False
        while True:
            try:
                _, status = os.waitpid(pid, 0)
            except InterruptedError:  # pragma: no cover - retried by Python itself
                continue
            return os.waitstatus_to_exitcode(status) == 0

    def stop(self) -> None:
        """End it if it is still at work, and reap it."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):  # it ended on its own
                os.kill(self.pid, signal.SIGKILL)
            self.reaped()


class Request:
    """In the forked process: the request ``Forked.ask`` sends it."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def get(self, wait: bool) -> Any:
        """The request, once sent; None when not sent yet and not ``wait``. Raises
        ``EOFError`` when none will come (it was never sent)."""
        if not wait and not select.select([self._fd], [], [], 0)[0]:
            return None
        parts = []
        while part := os.read(self._fd, 1 << 20):
            parts.append(part)
        if not parts:
            raise EOFError("no request was sent")
        return pickle.loads(b"".join(parts))


class Texts(NamedTuple):
    """Items that are texts, for ``Forked.written``: the forked process writes each one
    after ``joint``, passed through ``escape`` (as ``emit`` writes a file's text:
    ``assay._controls.escape_controls``), in UTF-8, one after the other."""

    texts: Iterable[str]
    joint: str
    escape: Callable[[str], str]


def _made(
    make: Callable[[Request], Iterable[Any] | Texts], asked: int, out: IO[bytes]
) -> int:  # pragma: no cover - run by the forked process
    """``Forked``'s work: ``make``'s items written to ``out``; 0 once all are."""
    made = make(Request(asked))
    if isinstance(made, Texts):
        _write_texts(made, out)
    else:
        write_items(made, out)
    return 0


def _write_texts(made: Texts, out: IO[bytes]) -> None:
    for text in made.texts:
        out.write(made.escape(made.joint + text).encode("utf-8"))
    out.flush()


def pickled(request: object) -> bytes | None:
    """``request`` pickled, to be sent to a forked process (``send``); None when it does
    not pickle."""
    try:
        return pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


def send(fd: int, data: bytes) -> bool:
    """Write ``data`` whole to the pipe ``fd`` (read by ``Request.get``), then close it;
    False when it cannot be written (the process at the other end has ended)."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def write_items(items: Iterable[object], out: IO[bytes]) -> None:
    """Write each item to ``out`` pickled, one after the other (``read_items``)."""
    dump = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    for item in items:
        dump.dump(item)
        dump.clear_memo()
    out.flush()


def read_items(out: IO[bytes]) -> Iterator[Any]:
    """The items ``write_items`` wrote to ``out``, from where it stands, as iterated."""
    while True:
        try:
            item = pickle.load(out)  # each item by a new unpickler: its memo starts empty
        except EOFError:
            return
        yield item
