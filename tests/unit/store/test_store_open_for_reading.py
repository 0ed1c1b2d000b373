"""Opening a SQLite store for reading (``create=False``, what ``assay report`` and the other
reading commands do): its version read once, without changing the file; a store at an
earlier version still brought up to date; anything else refused as no store."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event
from tests.run_stores import fill_store
from tests.unit.store.test_store_upgrades import _fill_at

from assay.errors import StoreError
from assay.store import SCHEMA_VERSION, current_version, open_store


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_store_at_this_version_is_opened_for_reading_without_a_statement(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    fill_store(url)
    executed: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        executed.append(statement)

    event.listen(Engine, "before_cursor_execute", seen)
    try:
        store = open_store(url, create=False)
        assert executed == []  # no migration check: the version was read once, read-only
        runs = store.list_runs()
        store.close()
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
    assert runs and executed


def test_a_store_at_an_earlier_version_opened_for_reading_is_brought_up_to_date(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    _fill_at(url, SCHEMA_VERSION - 1)
    store = open_store(url, create=False)
    try:
        with store.engine.connect() as conn:
            assert current_version(conn) == SCHEMA_VERSION
        assert store.get_run("old").status == "completed"
    finally:
        store.close()


@pytest.mark.parametrize("kind", ["empty", "other tables"])
def test_a_sqlite_file_without_a_store_is_refused_and_left_as_it_was(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "notes.db"
    with sqlite3.connect(path) as conn:
        if kind == "other tables":
            conn.execute("CREATE TABLE notes (body TEXT)")
            conn.execute("INSERT INTO notes VALUES ('kept')")
    before = _digest(path)
    with pytest.raises(StoreError, match="no run store at"):
        open_store(f"sqlite:///{path}", create=False)
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no WAL, no journal


def test_a_missing_file_is_refused_and_not_created(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no run store at"):
        open_store(f"sqlite:///{tmp_path / 'absent.db'}", create=False)
    assert list(tmp_path.iterdir()) == []
