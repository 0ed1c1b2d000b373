"""The run store: runs, records, judgments and spans in SQLite (default) or PostgreSQL.

>>> store = open_store("sqlite:///.assay/assay.db")  # doctest: +SKIP
>>> [run.id for run in store.list_runs()]             # doctest: +SKIP
"""

from assay.store._claims import RunClaim
from assay.store._info import NAME_KEY, TAGS_KEY, RunInfo, redact
from assay.store._migrations import MIGRATIONS, current_version, migrate
from assay.store._open import open_store, store_url
from assay.store._schema import SCHEMA_VERSION
from assay.store._store import RunStore

__all__ = [
    "MIGRATIONS",
    "NAME_KEY",
    "SCHEMA_VERSION",
    "TAGS_KEY",
    "RunClaim",
    "RunInfo",
    "RunStore",
    "current_version",
    "migrate",
    "open_store",
    "redact",
    "store_url",
]
