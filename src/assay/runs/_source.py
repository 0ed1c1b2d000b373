"""Where a report comes from: a JSON report file, or a run in the store (by id, unique
prefix or name)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.errors import AssayConfigError, AssayInputError, StoreError
from assay.load import load_report_file, names_a_file
from assay.metrics import IntervalSetting
from assay.report import Report, at_level
from assay.runs._report import report_for_run
from assay.store import RunInfo, RunStore, open_store

__all__ = ["open_run_store", "report_and_run"]


def _quiet(_: str) -> None:
    pass


def report_and_run(
    source: str,
    store_url: str | None,
    interval: IntervalSetting,
    rows: bool = True,
    notify: Callable[[str], None] = _quiet,
) -> tuple[Report, RunInfo | None]:
    """The report for ``source`` and the stored run's details (None for a report file),
    read with the store open once: a JSON report file when such a file exists, else a run
    id (or unique prefix) in the run store at ``store_url``, its intervals at
    ``interval``. ``rows=False``: a stored run's report is built without its case rows
    (only its figures will be read). ``notify`` hears that a report file's intervals were
    recomputed at another level."""
    path = Path(source)
    if names_a_file(path):  # a directory or a name too long is refused by the reader
        return _at_level(load_report_file(path), path, interval, notify), None
    store = open_run_store(source, store_url)
    try:
        run = store.get_run(source)
        return report_for_run(store, run.id, interval=interval, compact=True, rows=rows), run
    finally:
        store.close()


def open_run_store(source: str, store_url: str | None) -> RunStore:
    """The existing run store in which to look ``source`` up; when there is none, the
    message names ``source`` (neither a report file nor a run that can be found)."""
    try:
        return open_store(store_url, create=False)
    except StoreError as err:
        if err.kind != "absent":
            raise
        raise AssayInputError(f"{source}: no such report file, and {err}") from None


def _at_level(
    report: Report, path: Path, interval: IntervalSetting, notify: Callable[[str], None]
) -> Report:
    """A report file read at the asked level (default 0.95, Clopper–Pearson, as for a run
    id): recomputed from its counts and case rows when it was written at another one."""
    written = report.task_success
    level, chosen = interval.confidence, interval.method
    if (level, chosen) == (written.confidence, written.method):
        return report
    try:
        recomputed = at_level(report, interval)
    except ValueError as err:
        raise AssayConfigError(
            f"{path}: its intervals were written at {written.confidence:g} "
            f"({written.method}) and cannot be recomputed at {level:g} ({chosen}): {err}"
        ) from None
    notify(
        f"{path} was written at {written.confidence:g} ({written.method}); its "
        f"intervals are recomputed from its counts at {level:g} ({chosen})"
    )
    return recomputed
