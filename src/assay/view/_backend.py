"""What the viewer needs from the run store, and opening the store so it cannot write."""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from assay.errors import AssayConfigError
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
    cannot change: SQLite through a read-only connection; a server database as it is (the
    viewer only ever reads). A missing SQLite file is an error, never created."""
    store = importlib.import_module("assay.store")
    chosen: str = store.store_url(url)
    if not chosen.startswith("sqlite:"):
        return store.open_store(chosen)
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    database = make_url(chosen).database or ""
    path = Path(database)
    if not database or database == ":memory:" or not path.is_file():
        raise AssayConfigError(
            f"no run store at {database or chosen}: nothing to view "
            "(record a run with `assay run`, or pass --store)"
        )
    uri = f"{path.resolve().as_uri()}?mode=ro"

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        connection.execute("PRAGMA busy_timeout=10000")
        return connection

    engine = create_engine("sqlite://", creator=connect)
    reader: Any = store.RunStore(engine, f"{path} (read-only)")
    return reader


def report_for(reader: RunReader, run_id: str) -> Report:
    """The report of a stored run, as ``assay report RUN`` builds it."""
    runner = importlib.import_module("assay.runner")
    report: Report = runner.report_for_run(reader, run_id)
    return report


def compare_reports(baseline: Report, candidate: Report, refs: tuple[str, str]) -> Any:
    """The paired comparison of two stored runs' reports (``assay compare``)."""
    compare = importlib.import_module("assay.compare")
    sides = [
        compare.RunSide.from_report(report, ref=ref)
        for report, ref in zip((baseline, candidate), refs, strict=True)
    ]
    return compare.compare_runs(sides[0], sides[1], matching_only=True)
