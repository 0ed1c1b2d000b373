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

import functools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from assay._fast.forked import Child
from assay.load._records import stream_records
from assay.outcomes import plain_line, usual_shape

ASIDE_BYTES = 4 * 2**20
"""Results files at least this large are read aside; a smaller one is read quicker than
a process is started and its lines handed back."""

_LINES_PER_BATCH = 20_000


class ResultsAside:
    """The usual lines of a JSON Lines results file, read by a forked process from the
    moment it is made; ``plain_lines`` waits for it. Close it (a ``with`` block) so that
    the process never outlives the command."""

    def __init__(self, child: Child, out: IO[bytes]) -> None:
        self._child = child
        self._out = out
        self._done = False

    @classmethod
    def start(
        cls, path: Path, at_least: int | None = None, shared: bool = True
    ) -> ResultsAside | None:
        """Start reading ``path`` aside, when it is a JSON Lines file of at least
        ``at_least`` bytes (default ``ASIDE_BYTES``) on a system that forks; None
        otherwise. ``shared``: the short strings repeated from line to line come back as
        one object each (see ``JsonLines``), for a reader that keeps them; sharing them
        costs half the reading."""
        if not sys.platform.startswith("linux") or path.suffix.lower() != ".jsonl":
            return None
        try:
            if path.stat().st_size < (ASIDE_BYTES if at_least is None else at_least):
                return None
            import tempfile

            out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        except OSError:
            return None
        child = Child.start(functools.partial(_read_aside, path, out, shared))
        if child is None:
            out.close()
            return None
        return cls(child, out)

    def plain_lines(self) -> Iterator[dict[str, Any]] | None:
        """Every line of the file, decoded, when each is the usual result line (an id, a
        kind and text fields of that kind) and the file was read whole; None otherwise.
        Each batch of lines is unpickled as it is iterated."""
        if self._done or not self._child.reaped():
            return None
        self._done = True
        out = self._out
        out.seek(0)
        return _batches(out)

    def lines_read_again(self) -> Iterator[dict[str, Any]]:
        """The lines ``plain_lines`` gave, read from the start through a file of their own:
        for a process forked from this one, once ``plain_lines`` has given them there."""
        with open(f"/proc/self/fd/{self._out.fileno()}", "rb") as handle:
            yield from _batches(handle)

    def close(self) -> None:
        """Stop the process if it is still reading, and drop what it wrote."""
        self._child.stop()
        self._out.close()

    def __enter__(self) -> ResultsAside:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _batches(out: IO[bytes]) -> Iterator[dict[str, Any]]:
    import pickle

    load = pickle.load
    while True:
        batch = load(out)
        if batch is None:
            return
        yield from batch


def _read_aside(
    path: Path, out: IO[bytes], shared: bool
) -> int:  # pragma: no cover - run by the forked process
    """The forked process's work: 0 when it wrote the usual lines of ``path`` whole."""
    whole = _write_plain_lines(path, out, shared)
    out.flush()
    return 0 if whole else 3


def _write_plain_lines(path: Path, out: IO[bytes], shared: bool = True) -> bool:
    """Write the usual lines of ``path`` to ``out`` in pickled batches closed by None;
    False as soon as a line is not such a line, or at the end when none was read."""
    import pickle

    _, _, lines = stream_records(path, "results", allow_empty=True, shared=shared)
    if lines is None:
        return False
    dump = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    batch: list[dict[str, Any]] = []
    count = 0
    for _, raw in lines:
        if type(raw) is not dict or not usual_shape(raw) or not plain_line(raw):
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
