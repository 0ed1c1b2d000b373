"""Several runs writing one store at once while it is read: PostgreSQL under load (4
concurrent runs, a viewer and ``assay gate`` reading), and two runs writing one SQLite
file at once. Nothing lost, nothing duplicated, never a damaged store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tests.pg_cluster import fresh_database
from tests.store_load import Load, expected_counts, run_load


def _assert_complete(load: Load) -> None:
    assert load.exit_codes == [0] * load.runs, load.stderr
    assert load.statuses == ["completed"] * load.runs
    assert load.recorded == [load.expected] * load.runs
    assert load.distinct == [load.expected] * load.runs
    assert load.lost == 0 and load.duplicated == 0
    assert load.counts == [expected_counts(load.cases, load.trials)] * load.runs


@pytest.mark.slow
@pytest.mark.postgres
def test_four_runs_write_postgresql_at_once_while_it_is_read(
    postgres_server: str, tmp_path: Path
) -> None:
    load = run_load(fresh_database(postgres_server), tmp_path / "suite", 4, 500, 5)
    _assert_complete(load)
    assert load.reports_read > 0 and load.unbalanced_reads == 0  # each read mid-run adds up
    assert load.pages_read > 0 and load.bad_pages == []
    assert load.gate_codes and set(load.gate_codes) <= {0, 1} and load.gate_tracebacks == 0
    assert load.throughput > 0


def test_two_runs_writing_one_sqlite_store_at_once_never_damage_it(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    load = run_load(f"sqlite:///{db}", tmp_path / "suite", 2, 300, 2)
    for code, err in zip(load.exit_codes, load.stderr, strict=True):
        # Both succeed, or one is refused with the store's own message (exit 2).
        assert code == 0 or (code == 2 and "store" in err and "Traceback" not in err), err
    finished = [i for i, code in enumerate(load.exit_codes) if code == 0]
    assert finished, load.stderr
    for i in finished:
        assert load.distinct[i] == load.recorded[i] == load.expected
        assert load.counts[i] == expected_counts(load.cases, load.trials)
    assert load.duplicated == 0 and load.unbalanced_reads == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
