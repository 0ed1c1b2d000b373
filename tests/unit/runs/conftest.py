"""Stores for the read model's tests: a SQLite file, and a database on a throwaway
PostgreSQL cluster (one per test session, so one per pytest-xdist worker) when the server
binaries are on the machine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pg_cluster import ClusterUnavailable, fresh_database, postgres_cluster


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
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
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'assay.db'}"
    return fresh_database(request.getfixturevalue("postgres_server"))
