"""Schema versions and the migrations between them.

A new store is created at version 1 and migrated forward, so every store, old or new,
goes through the same steps. Each migration is plain portable SQL that SQLite and
PostgreSQL both accept, and runs in one transaction with its ``schema_version`` row.

- 1: runs, records, judgments, spans.
- 2: ``runs.metadata`` (run metadata: demo configuration, prompt version, model, the
  selection that produced the cases) and ``records.trace_id`` (ties a record to its spans).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

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

MIGRATIONS: dict[int, tuple[str, ...]] = {1: _V1, 2: _V2}


def _now() -> str:
    return datetime.now(UTC).isoformat()


def current_version(conn: Connection) -> int:
    """The store's schema version; 0 for an empty database."""
    if not inspect(conn).has_table("schema_version"):
        return 0
    found = conn.execute(text("SELECT MAX(version) FROM schema_version")).scalar()
    return int(found or 0)


def migrate(
    engine: Engine, upto: int = SCHEMA_VERSION, on_step: Callable[[int], None] | None = None
) -> int:
    """Bring the store to schema version ``upto``; returns the version it started from.

    A store written by a newer assay (a version above ``SCHEMA_VERSION``) is refused.
    """
    with engine.begin() as conn:
        start = current_version(conn)
    if start > SCHEMA_VERSION:
        raise AssayConfigError(
            f"the store is at schema version {start}, newer than this assay supports "
            f"({SCHEMA_VERSION}); upgrade assay to read it"
        )
    for version in range(start + 1, upto + 1):
        with engine.begin() as conn:
            for statement in MIGRATIONS[version]:
                conn.execute(text(statement))
            conn.execute(
                text("INSERT INTO schema_version (version, applied_at) VALUES (:v, :t)"),
                {"v": version, "t": _now()},
            )
        if on_step is not None:
            on_step(version)
    return start
