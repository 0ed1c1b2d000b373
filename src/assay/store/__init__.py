"""The run store: runs, records, judgments and spans in SQLite (default) or PostgreSQL.

>>> store = open_store("sqlite:///.assay/assay.db")  # doctest: +SKIP
>>> [run.id for run in store.list_runs()]             # doctest: +SKIP
"""

from assay.store._case_index import Group, read_case_hashes, read_case_ids, read_case_index
from assay.store._claims import RunClaim
from assay.store._damage import DamagedRow, item_damage, record_damage, row_failure, shown
from assay.store._failures import guard_call, rows_named
from assay.store._info import NAME_KEY, TAGS_KEY, RunInfo, redact
from assay.store._migrations import MIGRATIONS, current_version, migrate
from assay.store._open import open_store, store_url
from assay.store._rows import (
    STORED_STATUSES,
    json_items,
    judgment_of,
    record_of,
    remembered,
    snapshot_text,
    stored_outcome,
)
from assay.store._schema import SCHEMA_VERSION, judgments, records, runs
from assay.store._store import RunStore

__all__ = [
    "MIGRATIONS",
    "NAME_KEY",
    "SCHEMA_VERSION",
    "STORED_STATUSES",
    "TAGS_KEY",
    "DamagedRow",
    "Group",
    "RunClaim",
    "RunInfo",
    "RunStore",
    "current_version",
    "guard_call",
    "item_damage",
    "json_items",
    "judgment_of",
    "judgments",
    "migrate",
    "open_store",
    "read_case_hashes",
    "read_case_ids",
    "read_case_index",
    "record_damage",
    "record_of",
    "records",
    "redact",
    "remembered",
    "row_failure",
    "rows_named",
    "runs",
    "shown",
    "snapshot_text",
    "store_url",
    "stored_outcome",
]
