"""Schema versions and the migrations between them.

A new store is created at version 1 and migrated forward, so every store, old or new,
goes through the same steps. Each migration is plain portable SQL that SQLite and
PostgreSQL both accept, and runs in one transaction with its ``schema_version`` row.

- 1: runs, records, judgments, spans.
- 2: ``runs.metadata`` (run metadata: demo configuration, prompt version, model, the
  selection that produced the cases) and ``records.trace_id`` (ties a record to its spans).
- 3: indexes for listing runs newest first (``runs_by_start``) and for one case across
  runs (``records_by_case``, ``judgments_by_case``).
- 4: ``case_index``: each run's cases by (slice, synthetic, split) group, their ids and
  source revisions, written with the run, so that its summary is counted without reading
  the cases' snapshot. Runs stored earlier have no row and are read as before.
- 5: ``judgments.position``: the dataset position of the judged case, as its record has
  it, so that a run's judgments are counted beside its records without joining the two
  tables on case ids. Judgments stored before take their record's position; one without
  a record has none. ``records.kind``: the outcome's kind, written with the record, so
  that counting does not parse each outcome; records stored before have none (their
  outcome is read).
- 6: ``records_by_position``: a run's records in dataset order, so that its report reads
  them (or a range of them) without sorting; ``case_index.hashes``: each case's content
  hash, written with the run, so that its report does not hash every case again. Runs
  stored before have none (their cases' hashes are taken from their snapshot).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, inspect, text

from assay.errors import AssayConfigError
from assay.store._schema import SCHEMA_VERSION

_V1 = (
    """CREATE TABLE schema_version (
        version INTEGER PRIMARY KEY,
        applied_at VARCHAR(40) NOT NULL)""",
    """CREATE TABLE runs (
        id VARCHAR(64) PRIMARY KEY,
        started_at VARCHAR(40) NOT NULL,
        ended_at VARCHAR(40),
        status VARCHAR(16) NOT NULL,
        suite_path TEXT,
        suite TEXT NOT NULL,
        dataset_name TEXT NOT NULL,
        dataset_version VARCHAR(80) NOT NULL,
        cases TEXT NOT NULL,
        target TEXT NOT NULL,
        target_hash VARCHAR(80) NOT NULL,
        graders TEXT NOT NULL,
        trials INTEGER NOT NULL,
        trial_policy VARCHAR(32) NOT NULL,
        assay_version VARCHAR(32) NOT NULL,
        git_commit VARCHAR(64),
        packages TEXT NOT NULL,
        summary TEXT)""",
    """CREATE TABLE records (
        run_id VARCHAR(64) NOT NULL,
        case_id TEXT NOT NULL,
        trial INTEGER NOT NULL,
        position INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        latency_ms DOUBLE PRECISION,
        input_tokens INTEGER,
        output_tokens INTEGER,
        extra TEXT,
        PRIMARY KEY (run_id, case_id, trial))""",
    """CREATE TABLE judgments (
        run_id VARCHAR(64) NOT NULL,
        case_id TEXT NOT NULL,
        trial INTEGER NOT NULL,
        grader VARCHAR(64) NOT NULL,
        grader_version VARCHAR(32) NOT NULL,
        status VARCHAR(16) NOT NULL,
        reason TEXT NOT NULL,
        score DOUBLE PRECISION,
        labels TEXT,
        PRIMARY KEY (run_id, case_id, trial, grader))""",
    """CREATE TABLE spans (
        run_id VARCHAR(64) NOT NULL,
        trace_id VARCHAR(32) NOT NULL,
        span_id VARCHAR(16) NOT NULL,
        parent_id VARCHAR(16),
        name TEXT NOT NULL,
        start_ns BIGINT NOT NULL,
        end_ns BIGINT NOT NULL,
        status VARCHAR(8) NOT NULL,
        status_message TEXT,
        attributes TEXT NOT NULL,
        case_id TEXT,
        trial INTEGER,
        PRIMARY KEY (run_id, trace_id, span_id))""",
    "CREATE INDEX spans_by_case ON spans (run_id, case_id, trial)",
)

_V2 = (
    "ALTER TABLE runs ADD COLUMN metadata TEXT",
    "ALTER TABLE records ADD COLUMN trace_id VARCHAR(32)",
)

_V3 = (
    "CREATE INDEX runs_by_start ON runs (started_at, id)",
    "CREATE INDEX records_by_case ON records (case_id, run_id, trial)",
    "CREATE INDEX judgments_by_case ON judgments (case_id, run_id, trial)",
)

_V4 = (
    """CREATE TABLE case_index (
        run_id VARCHAR(64) PRIMARY KEY,
        groups TEXT NOT NULL,
        codes TEXT NOT NULL,
        ids TEXT NOT NULL,
        revisions TEXT NOT NULL)""",
)

_V5 = (
    "ALTER TABLE judgments ADD COLUMN position INTEGER",
    "ALTER TABLE records ADD COLUMN kind VARCHAR(16)",
    """UPDATE judgments SET position = (
        SELECT rec.position FROM records rec
        WHERE rec.run_id = judgments.run_id AND rec.case_id = judgments.case_id
          AND rec.trial = judgments.trial)""",
)

_V6 = (
    "CREATE INDEX records_by_position ON records (run_id, position, trial)",
    "ALTER TABLE case_index ADD COLUMN hashes TEXT",
)

MIGRATIONS: dict[int, tuple[str, ...]] = {1: _V1, 2: _V2, 3: _V3, 4: _V4, 5: _V5, 6: _V6}


def _now() -> str:
    return datetime.now(UTC).isoformat()


# The key of the PostgreSQL advisory lock that migrations hold ("assay" in ASCII).
PG_LOCK_KEY = 0x6173736179


def current_version(conn: Connection) -> int:
    """The store's schema version; 0 for an empty database."""
    if not inspect(conn).has_table("schema_version"):
        return 0
    found = conn.execute(text("SELECT MAX(version) FROM schema_version")).scalar()
    return int(found or 0)


def _refuse_newer(start: int) -> None:
    if start > SCHEMA_VERSION:
        raise AssayConfigError(
            f"the store is at schema version {start}, newer than this assay supports "
            f"({SCHEMA_VERSION}); upgrade assay to read it"
        )


Execute = Callable[[str, dict[str, object]], object]


def _apply(execute: Execute, start: int, upto: int) -> list[int]:
    applied = []
    for version in range(start + 1, upto + 1):
        for statement in MIGRATIONS[version]:
            execute(statement, {})
        execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (:v, :t)",
            {"v": version, "t": _now()},
        )
        applied.append(version)
    return applied


def _migrate_sqlite(engine: Engine, upto: int) -> list[int]:
    # BEGIN IMMEDIATE takes SQLite's write lock before the version is read again, so of
    # several processes opening a new store at once one migrates and the others, after
    # waiting (busy_timeout), find the work done. DDL is transactional in SQLite, but
    # the sqlite3 module only opens transactions itself before DML: we open it here.
    with engine.connect() as conn:
        raw: Any = conn.connection.driver_connection
        kept = raw.isolation_level
        raw.isolation_level = None
        try:
            raw.execute("BEGIN IMMEDIATE")
            try:
                found = raw.execute(
                    "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
                    "AND name = 'schema_version'"
                ).fetchone()[0]
                start = 0
                if found:
                    start = int(
                        raw.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0
                    )
                _refuse_newer(start)
                applied = _apply(raw.execute, start, upto)
                raw.execute("COMMIT")
            except BaseException:
                raw.execute("ROLLBACK")
                raise
        finally:
            raw.isolation_level = kept
    return applied


def _migrate_server(engine: Engine, upto: int) -> list[int]:
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":  # held until this transaction ends
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_LOCK_KEY})
        start = current_version(conn)
        _refuse_newer(start)
        return _apply(lambda sql, params: conn.execute(text(sql), params), start, upto)


def migrate(
    engine: Engine, upto: int = SCHEMA_VERSION, on_step: Callable[[int], None] | None = None
) -> int:
    """Bring the store to schema version ``upto``; returns the version it started from.

    Safe when several processes open a new store at once: the steps run in one
    transaction under a lock (SQLite's write lock, a PostgreSQL advisory lock), after
    reading the version again, so each step is applied exactly once. A store already at
    ``upto`` is only read (it may be on a read-only mount). A store written by a newer
    assay (a version above ``SCHEMA_VERSION``) is refused.
    """
    with engine.connect() as conn:
        start = current_version(conn)
    _refuse_newer(start)
    if start >= upto:
        return start
    steps = _migrate_sqlite if engine.dialect.name == "sqlite" else _migrate_server
    for version in steps(engine, upto):
        if on_step is not None:
            on_step(version)
    return start
