"""Where a command's report comes from: a JSON report file or a run in the store."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import AssayConfigError, AssayInputError, InputFormatError, Location, Problem

if TYPE_CHECKING:
    from assay.metrics import IntervalMethod
    from assay.report import Report


def load_report_file(path: Path) -> Report:
    """The ``Report`` in the JSON file ``path`` (as ``--format json`` writes it)."""
    from pydantic import ValidationError

    from assay._validation import problems_from
    from assay.report import Report

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
    try:
        return Report.model_validate(data)
    except ValidationError as err:
        problems = problems_from(err, Location(str(path)), Report)[:20]
        raise InputFormatError(problems, summary) from None


def _check_level(report: Report, path: Path, confidence: float | None, method: str | None) -> None:
    """A report file's intervals are as written: asking another level or method is refused."""
    written = report.task_success
    if (confidence is None or confidence == written.confidence) and (
        method is None or method == written.method
    ):
        return
    raise AssayConfigError(
        f"{path}: its intervals were written at {written.confidence:.0%} ({written.method}); "
        "a report file is read as written. Re-score it with --confidence/--interval, or give "
        "a run id to rebuild its report at the level you ask"
    )


def report_from_source(
    source: str,
    store_url: str | None,
    confidence: float | None = None,
    method: IntervalMethod | None = None,
) -> Report:
    """The report for ``source``: a JSON report file when such a file exists, else a run id
    (or unique prefix) in the run store at ``store_url``, its intervals at ``confidence`` by
    ``method`` (default 0.95, Clopper–Pearson)."""
    from assay.load import names_a_file

    path = Path(source)
    if names_a_file(path):
        written = load_report_file(path)
        _check_level(written, path, confidence, method)
        return written
    try:
        runner = importlib.import_module("assay.runner")
        store_module = importlib.import_module("assay.store")
    except ImportError:
        raise AssayInputError(
            f"{source}: no such file, and this installation has no run store to look it up"
        ) from None
    store = store_module.open_store(store_url)
    try:
        run = store.get_run(source)
        report: Report = runner.report_for_run(
            store, run.id, confidence=confidence or 0.95, method=method or "clopper-pearson"
        )
        return report
    finally:
        store.close()
