"""Schema versions: a store written at version 1 opens, migrates and reports."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from assay.errors import AssayConfigError
from assay.runner import report_for_run
from assay.store import SCHEMA_VERSION, current_version, open_store

V1 = Path(__file__).parents[2] / "data" / "store-v1.db"


def test_a_version_1_store_is_migrated_and_still_reports(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(V1, path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone() == (1,)
    store = open_store(f"sqlite:///{path}")
    try:
        with store.engine.connect() as conn:
            assert current_version(conn) == SCHEMA_VERSION == 6
        info = store.get_run("20260101")
        assert info.metadata == {} and info.status == "completed"
        records = store.records(info.id)
        assert [r.case_id for r in records] == ["E1", "E2", "E3", "E4", "E5", "E6"]
        assert all(r.trace_id is None for r in records)
        report = report_for_run(store, info.id)
        assert (report.task_success.numerator, report.task_success.denominator) == (2, 6)
        assert report.errors == 1
    finally:
        store.close()


def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    open_store(url).close()
    store = open_store(url)
    with store.engine.connect() as conn:
        versions = conn.execute(text("SELECT version FROM schema_version")).scalars().all()
    store.close()
    assert sorted(versions) == [1, 2, 3, 4, 5, 6]


def test_a_store_from_a_newer_assay_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    open_store(url).close()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO schema_version VALUES (99, 'later')"))
    engine.dispose()
    with pytest.raises(AssayConfigError, match="newer than this assay supports"):
        open_store(url)


def test_the_default_sqlite_store_uses_wal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    open_store().close()
    db = tmp_path / ".assay" / "assay.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
