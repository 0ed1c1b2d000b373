"""Where a command's report comes from: a JSON report file or a run in the store."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import AssayConfigError, AssayInputError, InputFormatError, Location, Problem

if TYPE_CHECKING:
    from assay.metrics import IntervalSetting
    from assay.report import Report
    from assay.store import RunInfo


def load_report_file(path: Path) -> Report:
    """The ``Report`` in the JSON file ``path`` (as ``--format json`` writes it)."""
    from pydantic import ValidationError

    from assay._validation import problems_from
    from assay.report import SCHEMA_VERSION, Report, report_problems

    summary = f"{path}: not an assay JSON report (write one with --format json --output FILE)"
    from assay.load import read_text

    text = read_text(path)  # a regular file of bounded size, else a clear error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        problem = Problem(f"not valid JSON: {err.msg}", Location(str(path), err.lineno))
        raise InputFormatError([problem], summary) from None
    except (ValueError, RecursionError):  # over-long numbers, nesting past the stack
        problem = Problem("not a report assay wrote (numbers or nesting out of bounds)")
        raise InputFormatError([problem], summary) from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version is not None and version != SCHEMA_VERSION:
        problem = Problem(
            f"schema_version is {version!r}; this assay reads version {SCHEMA_VERSION}",
            Location(str(path)),
            "schema_version",
        )
        raise InputFormatError(
            [problem], f"{path}: a report of an unknown schema version (re-score the results)"
        )
    try:
        report = Report.model_validate(data)
    except ValidationError as err:
        problems = problems_from(err, Location(str(path)), Report)[:20]
        raise InputFormatError(problems, summary) from None
    _refuse(path, report_problems(report))
    return report


def _refuse(path: Path, found: list[str]) -> None:
    """Refuse a report file whose rows or counts contradict it (``found``, each message
    beginning with the field it names)."""
    if found:
        raise InputFormatError(
            [Problem(p, Location(str(path)), p.split(" ")[0].rstrip(":")) for p in found[:20]],
            f"{path}: the report contradicts its own counts (edited by hand, or damaged); "
            "re-score the results to get a consistent report",
        )


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


def composite_report_file(path: Path) -> Any:
    """The ``CompositeReport`` in ``path`` when the file is a JSON composite report (as
    ``assay composite --format json`` writes it), else None."""
    from pydantic import ValidationError

    from assay._validation import problems_from
    from assay.load import names_a_file, read_text
    from assay.report import CompositeReport, row_trial_problems

    if not names_a_file(path) or path.suffix.lower() != ".json":
        return None
    try:
        data = json.loads(read_text(path))
    except (ValueError, RecursionError):
        return None  # the report reader says what is wrong with it
    if not isinstance(data, dict) or data.get("report") != "composite":
        return None
    try:
        report = CompositeReport.model_validate(data)
    except ValidationError as err:
        problems = problems_from(err, Location(str(path)), CompositeReport)[:20]
        raise InputFormatError(
            problems, f"{path}: not a composite report assay wrote (edited by hand, or damaged)"
        ) from None
    _refuse(path, row_trial_problems(report.cases))
    return report
