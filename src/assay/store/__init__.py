"""The run store: runs, records, judgments and spans in SQLite (default) or PostgreSQL.

>>> store = open_store("sqlite:///.assay/assay.db")  # doctest: +SKIP
>>> [run.id for run in store.list_runs()]             # doctest: +SKIP
"""

from assay.store._claims import RunClaim
from assay.store._info import NAME_KEY, RUN_STATUSES, TAGS_KEY, RunInfo, RunStatus, redact
from assay.store._migrations import MIGRATIONS, current_version, migrate
from assay.store._open import DEFAULT_URL, ENV_VAR, open_store, store_url
from assay.store._read_only import read_only_sqlite
from assay.store._schema import SCHEMA_VERSION
from assay.store._store import RunStore, check_tag

__all__ = [
    "DEFAULT_URL",
    "ENV_VAR",
    "MIGRATIONS",
    "NAME_KEY",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "TAGS_KEY",
    "RunClaim",
    "RunInfo",
    "RunStatus",
    "RunStore",
    "check_tag",
    "current_version",
    "migrate",
    "open_store",
    "read_only_sqlite",
    "redact",
    "store_url",
]
