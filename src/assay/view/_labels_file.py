"""The review page's labels file: JSON Lines of ``HumanLabel``, appended one whole line at
a time under a lock, never rewritten."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from assay.errors import AssayConfigError
from assay.load import read_labels
from assay.report import HumanLabel

try:
    import fcntl
except ImportError:  # Windows: the in-process lock alone serializes appends
    fcntl = None  # type: ignore[assignment]


class LabelsFile:
    """A labels file that the review page reads at start and appends to; every append is
    one ``write`` of one line to a file opened for appending, under a lock (a thread lock,
    and an advisory file lock for another process appending to the same file)."""

    def __init__(self, path: Path) -> None:
        if path.suffix.lower() != ".jsonl":
            raise AssayConfigError(
                f"--labels {path}: the review page appends JSON Lines; name a .jsonl file"
            )
        if not path.parent.is_dir():
            raise AssayConfigError(f"--labels {path}: no such directory {path.parent}")
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> list[HumanLabel]:
        """The labels on file (a later label by the same reviewer superseding an earlier
        one); none when the file does not exist yet. A bad file is an input error naming
        its file, line and field."""
        if not self.path.exists():
            return []
        return read_labels(self.path, allow_empty=True)

    def append(self, label: HumanLabel) -> None:
        """Add ``label`` as one line at the end of the file (created when missing)."""
        line = json.dumps(label.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
        with self._lock, self._locked() as fd:
            if os.fstat(fd).st_size and not self._ends_with_newline():
                line = "\n" + line  # a last line written without its end stays a line
            os.write(fd, (line + "\n").encode("utf-8"))
            os.fsync(fd)

    @contextmanager
    def _locked(self) -> Iterator[int]:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield fd
        finally:
            os.close(fd)  # closing releases the file lock

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as existing:
            existing.seek(-1, os.SEEK_END)
            return existing.read(1) == b"\n"
