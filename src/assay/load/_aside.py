"""A results file read by a second process while this one reads the dataset.

Decoding and checking a million result lines is about a quarter of ``assay score``'s
work, and none of it needs the dataset: a forked process does it on the other core and
hands back the usual lines (``plain_lines``) as their decoded objects, which the report
reads without making a record of each (``streamed_lines_report``). Anything else about
the file (a line that is not the usual one, a problem, no line at all, a process that
could not be started or did not finish) gives nothing back, and the caller reads the
file itself the usual way, which says what, if anything, is wrong with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Self, cast

from assay.load._records import stream_records
from assay.outcomes._parse import _plain_record, _usual_shape

if TYPE_CHECKING:
    from assay.cases import Dataset

ASIDE_BYTES = 4 * 2**20
"""Results files at least this large are read aside; a smaller one is read quicker than
a process is started and its lines handed back."""

_LINES_PER_BATCH = 20_000


class _Aside:
    """A forked process writing what it makes to a temporary file; ``_output`` waits for
    it. Close it (a ``with`` block) so that the process never outlives the command."""

    def __init__(self, pid: int, out: IO[bytes]) -> None:
        self._pid: int | None = pid
        self._out = out
        self._done = False

    @classmethod
    def _fork(cls, work: Callable[[IO[bytes]], bool]) -> Self | None:
        """Run ``work(file)`` in a forked process (on Linux); None when none could be
        started."""
        if not sys.platform.startswith("linux"):
            return None
        import tempfile

        try:
            out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            out.close()
            return None
        if pid == 0:  # pragma: no cover - the forked process, measured by its output
            status = 1
            try:
                status = 0 if work(out) else 3
                out.flush()
            finally:
                os._exit(status)
        return cls(pid, out)

    def _output(self) -> IO[bytes] | None:
        """What the process wrote, from its start, once it ended having done its work;
        None when it did not (or when this was asked before)."""
        if self._done or not self._reap():
            return None
        self._done = True
        self._out.seek(0)
        return self._out

    def _reap(self) -> bool:
        pid, self._pid = self._pid, None
        if pid is None:
            return False
        while True:
            try:
                _, status = os.waitpid(pid, 0)
            except InterruptedError:  # pragma: no cover - retried by Python itself
                continue
            return os.waitstatus_to_exitcode(status) == 0

    def close(self) -> None:
        """Stop the process if it is still at work, and drop what it wrote."""
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):  # it ended on its own
                os.kill(self._pid, signal.SIGKILL)
            self._reap()
        self._out.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ResultsAside(_Aside):
    """The usual lines of a JSON Lines results file, read by a forked process from the
    moment it is made; ``plain_lines`` waits for it."""

    @classmethod
    def start(cls, path: Path, at_least: int | None = None) -> ResultsAside | None:
        """Start reading ``path`` aside, when it is a JSON Lines file of at least
        ``at_least`` bytes (default ``ASIDE_BYTES``) on a system that forks; None
        otherwise."""
        if path.suffix.lower() != ".jsonl":
            return None
        try:
            if path.stat().st_size < (ASIDE_BYTES if at_least is None else at_least):
                return None
        except OSError:
            return None
        return cls._fork(lambda out: _write_plain_lines(path, out))

    def plain_lines(self) -> Iterator[dict[str, Any]] | None:
        """Every line of the file, decoded, when each is the usual result line (an id, a
        kind and text fields of that kind) and the file was read whole; None otherwise.
        Each batch of lines is unpickled as it is iterated."""
        out = self._output()
        return None if out is None else _batches(out)


class HashesAside(_Aside):
    """A dataset's version and case hashes (``hash_cases``), taken by a forked process
    (which shares the loaded cases) while this one goes on; ``hashes`` waits for it."""

    @classmethod
    def start(cls, dataset: Dataset) -> HashesAside | None:
        """Start hashing the cases of ``dataset`` aside; None when no process could be
        started."""
        return cls._fork(lambda out: _write_hashes(dataset, out))

    def hashes(self) -> tuple[str, list[str]] | None:
        """``hash_cases(dataset.cases)``, or None when the process did not make it."""
        import pickle

        out = self._output()
        return None if out is None else cast("tuple[str, list[str]]", pickle.load(out))


def _write_hashes(dataset: Dataset, out: IO[bytes]) -> bool:
    import pickle

    from assay.cases._canonical import hash_cases

    pickle.dump(hash_cases(dataset.cases), out, protocol=pickle.HIGHEST_PROTOCOL)
    return True


def _batches(out: IO[bytes]) -> Iterator[dict[str, Any]]:
    import pickle

    load = pickle.load
    while True:
        batch = load(out)
        if batch is None:
            return
        yield from batch


def _write_plain_lines(path: Path, out: IO[bytes]) -> bool:
    """Write the usual lines of ``path`` to ``out`` in pickled batches closed by None;
    False as soon as a line is not such a line, or at the end when none was read."""
    import pickle

    _, _, lines = stream_records(path, "results", allow_empty=True)
    if lines is None:
        return False
    dump = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    batch: list[dict[str, Any]] = []
    count = 0
    for _, raw in lines:
        if type(raw) is not dict or not _usual_shape(raw) or _plain_record(raw) is None:
            return False
        batch.append(raw)
        if len(batch) == _LINES_PER_BATCH:
            dump.dump(batch)
            dump.clear_memo()
            count += len(batch)
            batch = []
    count += len(batch)
    if lines.problems or not count:
        return False
    if batch:
        dump.dump(batch)
    dump.dump(None)
    return True
