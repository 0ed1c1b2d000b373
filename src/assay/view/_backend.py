"""What the viewer needs from the run store, and opening the store so it cannot write."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from assay.errors import AssayConfigError
from assay.metrics import IntervalMethod
from assay.outcomes import Span
from assay.report import Report


class RunReader(Protocol):
    """The read side of the run store contract (``assay.store.RunStore`` implements it)."""

    def list_runs(self) -> Sequence[Any]: ...

    def get_run(self, run_id: str) -> Any: ...

    def spans(
        self, run_id: str, case_id: str | None = None, trial: int | None = None
    ) -> Sequence[Span]: ...

    def close(self) -> None: ...


def open_read_only(url: str | None = None) -> Any:
    """The store at ``url`` (default ``$ASSAY_STORE`` or ``.assay/assay.db``), opened so it
    cannot change: SQLite through a read-only connection, PostgreSQL in read-only
    transactions. Nothing is created or migrated: a missing store, or one at an older
    schema version than this assay, is an error."""
    store = importlib.import_module("assay.store")
    from sqlalchemy.engine import make_url

    chosen: str = store.store_url(url)
    parsed = make_url(chosen)
    if parsed.get_backend_name() == "sqlite":
        engine, shown = _sqlite_engine(parsed.database or "", chosen)
    else:
        engine, shown = _server_engine(parsed)
    try:
        _check_schema(engine, shown, store.SCHEMA_VERSION)
    except BaseException:
        engine.dispose()
        raise
    reader: Any = store.RunStore(engine, f"{shown} (read-only)")
    return reader


def _sqlite_engine(database: str, chosen: str) -> tuple[Any, str]:

    path = Path(database)
    if not database or database == ":memory:" or not path.is_file():
        raise AssayConfigError(
            f"no run store at {database or chosen}: nothing to view "
            "(record a run with `assay run`, or pass --store)"
        )
    # A read-only mount (no WAL index can be created there) is read as immutable.
    engine = importlib.import_module("assay.store").read_only_sqlite(path)
    return engine, str(path)


def _server_engine(parsed: Any) -> tuple[Any, str]:
    from sqlalchemy import create_engine

    shown = parsed.render_as_string(hide_password=True)
    # Every transaction of every pooled connection is read-only, set by the server at
    # connect: a write fails there, whatever the code above it does.
    options = {"options": "-c default_transaction_read_only=on"}
    try:
        engine = create_engine(parsed, pool_pre_ping=True, connect_args=options)
    except Exception as err:  # missing driver, bad options
        raise AssayConfigError(f"cannot open store {shown}: {err}") from None
    return engine, shown


def _check_schema(engine: Any, shown: str, expected: int) -> None:
    """Refuse a store this assay cannot read as it is (the viewer never migrates)."""
    from sqlalchemy.exc import DBAPIError

    from assay.store import current_version

    try:
        with engine.connect() as conn:
            found = current_version(conn)
    except DBAPIError as err:
        raise AssayConfigError(f"cannot open store {shown}: {err.orig}") from None
    if found == 0:
        raise AssayConfigError(
            f"no run store at {shown}: nothing to view "
            "(record a run with `assay run --store URL`, or pass another --store)"
        )
    if found < expected:
        raise AssayConfigError(
            f"the store at {shown} is at schema version {found}, older than this assay's "
            f"({expected}); the viewer never migrates a store: run `assay runs --store URL` "
            "once to migrate it, then view it"
        )
    if found > expected:
        raise AssayConfigError(
            f"the store at {shown} is at schema version {found}, newer than this assay "
            f"supports ({expected}); upgrade assay to view it"
        )


def report_for(
    reader: RunReader,
    run_id: str,
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
) -> Report:
    """The report of a stored run, as ``assay report RUN`` builds it (intervals at
    ``confidence`` by ``method``)."""
    runner = importlib.import_module("assay.runner")
    report: Report = runner.report_for_run(reader, run_id, confidence=confidence, method=method)
    return report


def compare_reports(
    baseline: Report,
    candidate: Report,
    refs: tuple[str, str],
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
    *,
    matching_only: bool = True,
) -> Any:
    """The paired comparison of two stored runs' reports (``assay compare``): on the cases
    whose definitions match, the rest listed as left out; with ``matching_only`` off,
    ``ComparisonRefusedError`` when any definition differs."""
    compare = importlib.import_module("assay.compare")
    sides = [
        compare.RunSide.from_report(report, ref=ref)
        for report, ref in zip((baseline, candidate), refs, strict=True)
    ]
    return compare.compare_runs(
        sides[0], sides[1], matching_only=matching_only, confidence=confidence, method=method
    )
