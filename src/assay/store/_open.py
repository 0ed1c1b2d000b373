"""Opening a store from a URL (or a plain SQLite file path)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from assay.errors import AssayConfigError
from assay.store._store import RunStore

DEFAULT_URL = "sqlite:///.assay/assay.db"
ENV_VAR = "ASSAY_STORE"


def store_url(url: str | None = None) -> str:
    """The URL to open: ``url``, else ``$ASSAY_STORE``, else the default SQLite file.

    A bare path (no ``://``) means a SQLite file; ``postgresql://`` uses psycopg 3.
    """
    chosen = url or os.environ.get(ENV_VAR) or DEFAULT_URL
    if "://" not in chosen:
        chosen = f"sqlite:///{chosen}"
    for prefix in ("postgresql://", "postgres://"):
        if chosen.startswith(prefix):
            chosen = "postgresql+psycopg://" + chosen[len(prefix) :]
    return chosen


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets a reader (assay runs, a viewer) read while a run writes; NORMAL sync is
    # durable at every checkpoint and fast enough for batched writes.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def open_store(url: str | None = None) -> RunStore:
    """A ``RunStore`` at ``url`` (see ``store_url``), created and migrated on first use."""
    from sqlalchemy import create_engine, event
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, OperationalError

    from assay.store._migrations import migrate

    chosen = store_url(url)
    try:
        parsed = make_url(chosen)
    except (ArgumentError, ValueError) as err:  # ValueError: a port that is not a number
        raise AssayConfigError(f"store URL {chosen!r} is not a database URL: {err}") from None
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:":
            try:
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:  # a parent that is a file, a name too long, no permission
                raise AssayConfigError(
                    f"cannot open store {shown}: cannot create its directory "
                    f"({err.strerror or err})"
                ) from None
        engine = create_engine(parsed)
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        try:
            engine = create_engine(parsed, pool_pre_ping=True)
        except Exception as err:  # missing driver, bad options
            raise AssayConfigError(f"cannot open store {shown}: {err}") from None
    try:
        migrate(engine)
    except OperationalError as err:
        engine.dispose()
        raise AssayConfigError(f"cannot open store {shown}: {err.orig}") from None
    return RunStore(engine, shown)
