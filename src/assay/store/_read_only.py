"""Opening a store so that it cannot change: nothing created, migrated or written."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from assay.errors import AssayConfigError
from assay.store._migrations import current_version
from assay.store._schema import SCHEMA_VERSION
from assay.store._store import RunStore


def open_read_only(chosen: str) -> RunStore:
    """The store at URL ``chosen``, opened so it cannot change: SQLite through a read-only
    connection, PostgreSQL in read-only transactions. A missing store, or one at another
    schema version than this assay's, is an error."""
    from sqlalchemy.engine import make_url

    parsed = make_url(chosen)
    if parsed.get_backend_name() == "sqlite":
        engine, shown = _sqlite_engine(parsed.database or "", chosen)
    else:
        engine, shown = _server_engine(parsed)
    try:
        _check_schema(engine, shown, SCHEMA_VERSION)
    except BaseException:
        engine.dispose()
        raise
    return RunStore(engine, f"{shown} (read-only)")


def read_only_sqlite(path: Path) -> Any:
    """An engine reading the SQLite file at ``path`` without ever writing to it (its
    connections are ``read_only_connection``'s)."""
    from sqlalchemy import create_engine

    resolved = path.resolve()
    return create_engine("sqlite://", creator=lambda: read_only_connection(resolved))


def read_only_connection(path: Path) -> sqlite3.Connection:
    """A connection reading the SQLite file at ``path`` without ever writing to it.

    On a read-only mount the WAL's index file cannot be created: the file is then opened
    as immutable, which is exact because no WAL file can exist beside it unseen.
    """
    uri = f"{path.resolve().as_uri()}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    try:
        connection.execute("PRAGMA busy_timeout=10000")
        connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        connection.close()
        if os.access(path.parent, os.W_OK) or Path(f"{path}-wal").exists():
            raise
        connection = sqlite3.connect(f"{uri}&immutable=1", uri=True, check_same_thread=False)
    return connection


def _sqlite_engine(database: str, chosen: str) -> tuple[Any, str]:
    path = Path(database)
    if not database or database == ":memory:" or not path.is_file():
        raise AssayConfigError(
            f"no run store at {database or chosen}: nothing to view "
            "(record a run with `assay run`, or pass --store)"
        )
    # A read-only mount (no WAL index can be created there) is read as immutable.
    return read_only_sqlite(path), str(path)


def _server_engine(parsed: Any) -> tuple[Any, str]:
    from sqlalchemy import create_engine

    shown = parsed.render_as_string(hide_password=True)
    # Every transaction of every pooled connection is read-only, set by the server at
    # connect: a write fails there, whatever the code above it does.
    options = {"options": "-c default_transaction_read_only=on"}
    try:
        engine = create_engine(parsed, pool_pre_ping=True, connect_args=options)
    except Exception as err:  # missing driver, bad options
        raise AssayConfigError(f"cannot open store {shown}: {err}") from None
    return engine, shown


def _check_schema(engine: Any, shown: str, expected: int) -> None:
    """Refuse a store this assay cannot read as it is (a read-only store is never
    migrated)."""
    from sqlalchemy.exc import DBAPIError

    try:
        with engine.connect() as conn:
            found = current_version(conn)
    except DBAPIError as err:
        raise AssayConfigError(f"cannot open store {shown}: {err.orig}") from None
    if found == 0:
        raise AssayConfigError(
            f"no run store at {shown}: nothing to view "
            "(record a run with `assay run --store URL`, or pass another --store)"
        )
    if found < expected:
        raise AssayConfigError(
            f"the store at {shown} is at schema version {found}, older than this assay's "
            f"({expected}); the viewer never migrates a store: run `assay runs --store URL` "
            "once to migrate it, then view it"
        )
    if found > expected:
        raise AssayConfigError(
            f"the store at {shown} is at schema version {found}, newer than this assay "
            f"supports ({expected}); upgrade assay to view it"
        )
