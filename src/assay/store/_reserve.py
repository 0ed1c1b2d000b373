"""Disk space set aside beside a SQLite store while a run writes to it.

When the disk fills up, SQLite cannot write even the few pages that record how a run
ended. A run therefore holds a small reserve file (``<store>-reserve``) of real, written
blocks; a run stopped by a full disk deletes it first, so that marking the run
``interrupted`` finds room. The file is removed when the run ends.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

RESERVE_BYTES = 256 * 1024


def reserve_path(database: str | None) -> Path | None:
    """Where the reserve of the SQLite file ``database`` goes (None: no file to guard)."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(f"{database}-reserve")


def hold(path: Path | None) -> bool:
    """Write the reserve file; False when there is no room for it (the run goes on)."""
    if path is None:
        return False
    try:
        with path.open("wb") as out:
            out.write(b"\0" * RESERVE_BYTES)  # written blocks, not a sparse file
            out.flush()
            os.fsync(out.fileno())
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink()
        return False
    return True


def release(path: Path | None) -> None:
    """Delete the reserve file, if there is one."""
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()
