"""Opening a store from a URL (or a plain SQLite file path)."""

from __future__ import annotations

import os
import sqlite3
import weakref
from pathlib import Path
from typing import Any

from assay.errors import AssayConfigError, StoreError
from assay.store._failures import store_failure
from assay.store._migrations import current_version, migrate
from assay.store._read_only import open_read_only, read_only_connection, read_only_sqlite
from assay.store._schema import SCHEMA_VERSION
from assay.store._store import RunStore

DEFAULT_URL = "sqlite:///.assay/assay.db"
ENV_VAR = "ASSAY_STORE"

# The stores this process opened, while they are in use: a process that ends without the
# interpreter's tear-down closes what is left of them first (see ``close_opened``).
_OPENED: weakref.WeakSet[RunStore] = weakref.WeakSet()


def close_opened() -> None:
    """Close every store ``open_store`` opened that is still referenced (closing twice is
    harmless): SQLite then folds its write-ahead log into the database file."""
    for store in list(_OPENED):
        store.close()


def _opened(store: RunStore) -> RunStore:
    _OPENED.add(store)
    return store


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
    # The wait comes first: switching a new file to WAL takes a lock that another process
    # opening the same new store may hold for a moment.
    cursor.execute("PRAGMA busy_timeout=10000")
    # WAL lets a reader (assay runs, a viewer) read while a run writes; NORMAL sync is
    # durable at every checkpoint and fast enough for batched writes.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _absent(shown: str) -> StoreError:
    return StoreError(
        f"no run store at {shown}: check --store (or ${ENV_VAR}); "
        "`assay run SUITE` creates the store",
        "absent",
    )


def _stored_version(path: Path) -> int | None:
    """The schema version of the SQLite file at ``path`` (0: no store there), read through
    a read-only connection without changing it; None when the file cannot be read as a
    database (it is reported as damaged when it is opened)."""
    if not path.is_file():
        return 0
    try:
        connection = read_only_connection(path)
    except sqlite3.Error:
        return None
    try:
        if connection.execute(_HAS_VERSION_TABLE).fetchone() is None:
            return 0
        (version,) = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(version or 0)
    except sqlite3.Error:
        return None
    finally:
        connection.close()


_HAS_VERSION_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"


def open_store(url: str | None = None, *, read_only: bool = False, create: bool = True) -> RunStore:
    """A ``RunStore`` at ``url`` (see ``store_url``), created and migrated on first use.

    With ``create=False`` (what reading commands use) a store that does not exist yet is
    refused with ``StoreError`` instead: nothing is created, not even an empty file.

    With ``read_only``, the store is opened so that it cannot change (what ``assay view``
    reads): nothing is created or migrated, a missing store or one at another schema
    version is ``AssayConfigError``, SQLite is read through a read-only connection and
    PostgreSQL in read-only transactions.

    A SQLite file that cannot be written (a read-only mount, an immutable or read-only
    file) is opened read-only: it can be read, and a write raises ``StoreError``.
    Failures of the database are ``StoreError`` (damaged, full, read-only, locked).
    """
    from sqlalchemy import create_engine, event
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, DBAPIError

    chosen = store_url(url)
    if read_only:
        return _opened(open_read_only(chosen))
    try:
        parsed = make_url(chosen)
    except (ArgumentError, ValueError) as err:  # ValueError: a port that is not a number
        raise AssayConfigError(f"store URL {chosen!r} is not a database URL: {err}") from None
    shown = parsed.render_as_string(hide_password=True)
    known: int | None = None  # the schema version, when read already
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        path = Path(database)
        if not create:
            known = 0 if database in ("", ":memory:") else _stored_version(path)
            if known == 0:
                raise _absent(shown)
        if database and database != ":memory:" and path.is_file() and not _writable(path):
            engine = read_only_sqlite(path)
            shown = f"{shown} (read-only)"
        else:
            if database and database != ":memory:":
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as err:
                    raise StoreError(
                        f"cannot open store {shown}: it cannot be created: {err.strerror or err} "
                        f"({path.parent}); choose another place with --store",
                        "cannot_open",
                    ) from None
            engine = create_engine(parsed)
            event.listen(engine, "connect", _sqlite_pragmas)
    else:
        try:
            engine = create_engine(parsed, pool_pre_ping=True)
        except Exception as err:  # missing driver, bad options
            raise AssayConfigError(f"cannot open store {shown}: {err}") from None
    if known == SCHEMA_VERSION:  # a store to read, at this assay's version: nothing to do
        return _opened(RunStore(engine, shown))
    try:
        if not create:
            with engine.connect() as conn:
                empty = current_version(conn) == 0
            if empty:
                engine.dispose()
                raise _absent(shown)
        migrate(engine)
    except DBAPIError as err:
        engine.dispose()
        raise store_failure(err, shown) from None
    except BaseException:
        engine.dispose()
        raise
    return _opened(RunStore(engine, shown))
