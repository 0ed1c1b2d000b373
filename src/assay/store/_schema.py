"""The store's tables at the current schema version (SQLAlchemy Core).

Every value that is not a key or a sortable figure is JSON text, so the same schema works
on SQLite and PostgreSQL without dialect types. Times are ISO 8601 UTC strings.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
)

SCHEMA_VERSION = 6

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True),
    Column("applied_at", String(40), nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("started_at", String(40), nullable=False),
    Column("ended_at", String(40)),
    Column("status", String(16), nullable=False),
    Column("suite_path", Text),
    Column("suite", Text, nullable=False),
    Column("dataset_name", Text, nullable=False),
    Column("dataset_version", String(80), nullable=False),
    Column("cases", Text, nullable=False),
    Column("target", Text, nullable=False),
    Column("target_hash", String(80), nullable=False),
    Column("graders", Text, nullable=False),
    Column("trials", Integer, nullable=False),
    Column("trial_policy", String(32), nullable=False),
    Column("assay_version", String(32), nullable=False),
    Column("git_commit", String(64)),
    Column("packages", Text, nullable=False),
    Column("summary", Text),
    Column("metadata", Text),  # version 2
)

records = Table(
    "records",
    metadata,
    Column("run_id", String(64), nullable=False),
    Column("case_id", Text, nullable=False),
    Column("trial", Integer, nullable=False),
    Column("position", Integer, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("latency_ms", Float),
    Column("input_tokens", Integer),
    Column("output_tokens", Integer),
    Column("extra", Text),
    Column("trace_id", String(32)),  # version 2
    # version 5: the outcome's kind (None: a record stored before version 5)
    Column("kind", String(16)),
    PrimaryKeyConstraint("run_id", "case_id", "trial"),
)

judgments = Table(
    "judgments",
    metadata,
    Column("run_id", String(64), nullable=False),
    Column("case_id", Text, nullable=False),
    Column("trial", Integer, nullable=False),
    Column("grader", String(64), nullable=False),
    Column("grader_version", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("score", Float),
    Column("labels", Text),
    # version 5: the judged case's dataset position, as its record's (None: a judgment
    # stored before version 5 without a record)
    Column("position", Integer),
    PrimaryKeyConstraint("run_id", "case_id", "trial", "grader"),
)

spans = Table(
    "spans",
    metadata,
    Column("run_id", String(64), nullable=False),
    Column("trace_id", String(32), nullable=False),
    Column("span_id", String(16), nullable=False),
    Column("parent_id", String(16)),
    Column("name", Text, nullable=False),
    Column("start_ns", BigInteger, nullable=False),
    Column("end_ns", BigInteger, nullable=False),
    Column("status", String(8), nullable=False),
    Column("status_message", Text),
    Column("attributes", Text, nullable=False),
    Column("case_id", Text),
    Column("trial", Integer),
    PrimaryKeyConstraint("run_id", "trace_id", "span_id"),
)

# Version 4: what a run's summary groups its cases by, read without its cases' snapshot
# (``assay.store._case_index``). Runs stored before version 4 have no row.
case_index = Table(
    "case_index",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("groups", Text, nullable=False),
    Column("codes", Text, nullable=False),
    Column("ids", Text, nullable=False),
    Column("revisions", Text, nullable=False),
    Column("hashes", Text),  # version 6; None for runs stored before
)

# Version 3: listing runs newest first, and one case across runs.
Index("runs_by_start", runs.c.started_at, runs.c.id)
Index("records_by_case", records.c.case_id, records.c.run_id, records.c.trial)
Index("judgments_by_case", judgments.c.case_id, judgments.c.run_id, judgments.c.trial)
Index("spans_by_case", spans.c.run_id, spans.c.case_id, spans.c.trial)
# Version 6: a run's records in dataset order.
Index("records_by_position", records.c.run_id, records.c.position, records.c.trial)
