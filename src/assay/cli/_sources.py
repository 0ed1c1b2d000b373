"""Where a command's report comes from: a JSON report file or a run in the store."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import AssayConfigError, AssayInputError
from assay.load import composite_report_file as composite_report_file  # for the gate command
from assay.load import load_report_file

if TYPE_CHECKING:
    from assay.metrics import IntervalSetting
    from assay.report import Report
    from assay.store import RunInfo


def _at_level(report: Report, path: Path, interval: IntervalSetting) -> Report:
    """A report file read at the asked level (default 0.95, Clopper–Pearson, as for a run
    id): recomputed from its counts and case rows when it was written at another one."""
    from assay.report import at_level

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
    sys.stderr.write(
        f"assay: {path} was written at {written.confidence:g} ({written.method}); its "
        f"intervals are recomputed from its counts at {level:g} ({chosen})\n"
    )
    return recomputed


def report_and_run(
    source: str,
    store_url: str | None,
    interval: IntervalSetting,
    rows: bool = True,
) -> tuple[Report, RunInfo | None]:
    """The report for ``source`` and the stored run's details (None for a report file),
    read with the store open once: a JSON report file when such a file exists, else a run
    id (or unique prefix) in the run store at ``store_url``, its intervals at
    ``interval``. ``rows=False``: a stored run's report is built without its case rows
    (only its figures will be read)."""
    from assay.load import names_a_file

    path = Path(source)
    if names_a_file(path):  # a directory or a name too long is refused by the reader
        return _at_level(load_report_file(path), path, interval), None
    try:
        from assay.runs import report_for_run
    except ImportError:
        raise AssayInputError(
            f"{source}: no such file, and this installation has no run store to look it up"
        ) from None
    store = open_run_store(source, store_url)
    try:
        run = store.get_run(source)
        return report_for_run(store, run.id, interval=interval, compact=True, rows=rows), run
    finally:
        store.close()


def open_run_store(source: str, store_url: str | None) -> Any:
    """The existing run store in which to look ``source`` up; when there is none, the
    message names ``source`` (neither a report file nor a run that can be found)."""
    from assay.errors import StoreError
    from assay.store import open_store

    try:
        return open_store(store_url, create=False)
    except StoreError as err:
        if err.kind != "absent":
            raise
        raise AssayInputError(f"{source}: no such report file, and {err}") from None
