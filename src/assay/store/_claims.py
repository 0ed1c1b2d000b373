"""A claim on a run: while one process runs (or resumes) a run, no other may.

The claim is a lock the operating system or the database server drops when its holder
ends, however it ends (Ctrl-C, a crash, SIGKILL): nothing is left to clean up and no
stale claim ever blocks a resume.

- SQLite: an exclusive ``flock`` on ``<store>-claims/<run id>.lock`` (the file and its
  folder are removed when the claim is released).
- PostgreSQL: a session advisory lock, held by a connection kept for the run.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from assay.errors import AssayInputError

# First key of the PostgreSQL advisory locks of run claims ("ru" in ASCII); the second
# is a checksum of the run id.
PG_CLAIM_CLASS = 0x7275


class RunClaim:
    """A held claim; ``release()`` gives it back (also done when the process ends)."""

    def __init__(self, release: Any = None) -> None:
        self._release = release

    def release(self) -> None:
        if self._release is not None:
            release, self._release = self._release, None
            release()


def _refused(run_id: str) -> AssayInputError:
    return AssayInputError(
        f"run {run_id} is being run by another process right now (another `assay run` or "
        "`assay run --resume` of it has not ended); wait for it to end, or stop it with "
        "Ctrl-C, then resume the run"
    )


def _lock_file(run_id: str, folder: Path) -> RunClaim:
    import fcntl

    path = folder / f"{run_id}.lock"
    while True:
        folder.mkdir(exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:  # the folder was removed by the last claim's release
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _refused(run_id) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:  # not a file its last holder removed while we opened it
            break
        os.close(fd)

    def release() -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)
        with contextlib.suppress(OSError):  # left in place while other runs are claimed
            folder.rmdir()

    return RunClaim(release)


def _advisory_lock(run_id: str, engine: Engine) -> RunClaim:
    conn = engine.connect()
    key = zlib.crc32(run_id.encode()) - 2**31  # a signed 32-bit integer
    try:
        got = conn.execute(
            text("SELECT pg_try_advisory_lock(:a, :b)"), {"a": PG_CLAIM_CLASS, "b": key}
        ).scalar()
        conn.commit()
    except BaseException:
        conn.close()
        raise
    if not got:
        conn.close()
        raise _refused(run_id)

    def release() -> None:
        with contextlib.suppress(Exception):
            conn.execute(text("SELECT pg_advisory_unlock(:a, :b)"), {"a": PG_CLAIM_CLASS, "b": key})
            conn.commit()
        conn.close()

    return RunClaim(release)


def claim_run(engine: Engine, run_id: str) -> RunClaim:
    """Claim ``run_id`` for this process, or raise ``AssayInputError`` when another
    process holds it. A store without a way to lock (an in-memory SQLite database, a
    system without ``flock``) gives a claim that guards nothing."""
    if engine.dialect.name == "postgresql":
        return _advisory_lock(run_id, engine)
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return RunClaim()
    try:
        import fcntl  # noqa: F401 - Unix only
    except ImportError:
        return RunClaim()
    return _lock_file(run_id, Path(f"{database}-claims"))
