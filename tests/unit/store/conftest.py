"""Store URLs to test against: a SQLite file, and a throwaway PostgreSQL cluster started
with the machine's initdb/pg_ctl (skipped, with the reason shown, when they are absent)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pg_cluster import ClusterUnavailable, fresh_database, postgres_cluster


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL cluster on 127.0.0.1 (trust auth), removed at the end of the session."""
    try:
        cluster = postgres_cluster()
        url = cluster.__enter__()
    except ClusterUnavailable as err:
        pytest.skip(str(err))
    try:
        yield url
    finally:
        cluster.__exit__(None, None, None)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty store: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'assay.db'}"
    return fresh_database(request.getfixturevalue("postgres_server"))
