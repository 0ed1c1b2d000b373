"""The viewer's store: opened read-only on SQLite and PostgreSQL, never created or migrated."""

from __future__ import annotations

import warnings

import pytest
from sqlalchemy import create_engine, inspect, text
from tests.run_stores import fill_store

from assay.errors import AssayConfigError
from assay.store import migrate, open_store
from assay.view import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # starlette would rather have httpx2
    from starlette.testclient import TestClient


def _versions(url: str) -> list[int]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("schema_version"):
                return []
            rows = conn.execute(text("SELECT version FROM schema_version")).scalars()
            return sorted(int(v) for v in rows)
    finally:
        engine.dispose()


def test_every_page_reads_and_nothing_can_write(store_url: str) -> None:
    fill_store(store_url)
    reader = open_store(store_url, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            for route in ("/", "/runs/base", "/runs/cand/report.json", "/case?id=E5",
                          "/compare?baseline=base&candidate=cand"):  # fmt: skip
                assert client.get(route).status_code == 200, route
        with pytest.raises(Exception, match=r"(?i)read-only|readonly"):
            reader.finish_run("base", "failed")
        with (
            pytest.raises(Exception, match=r"(?i)read-only|readonly"),
            reader.engine.begin() as conn,
        ):
            conn.execute(text("DELETE FROM runs"))
        assert reader.get_run("base").status == "completed"
        if store_url.startswith("postgresql"):  # the server itself refuses writes
            with reader.engine.connect() as conn:
                assert conn.execute(text("SHOW default_transaction_read_only")).scalar() == "on"
        assert "(read-only)" in reader.url
    finally:
        reader.close()


def test_an_older_store_is_refused_not_migrated(store_url: str) -> None:
    engine = create_engine(store_url)
    migrate(engine, upto=1)
    engine.dispose()
    with pytest.raises(AssayConfigError, match=r"schema version 1, older .* never migrates"):
        open_store(store_url, read_only=True)
    assert _versions(store_url) == [1]


def test_an_empty_database_is_nothing_to_view(store_url: str) -> None:
    if store_url.startswith("sqlite"):
        create_engine(store_url).connect().close()  # an empty file
    with pytest.raises(AssayConfigError, match="nothing to view"):
        open_store(store_url, read_only=True)
    assert _versions(store_url) == []
