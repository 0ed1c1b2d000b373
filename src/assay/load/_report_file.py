"""Report files: a JSON report (or composite report) assay wrote, read back and checked
against its own counts and rows."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from assay._validation import problems_from
from assay.errors import InputFormatError, Location, Problem
from assay.load._limits import names_a_file
from assay.load._records import read_text
from assay.report import (
    SCHEMA_VERSION,
    CompositeReport,
    Report,
    report_problems,
    row_trial_problems,
)


def load_report_file(path: Path) -> Report:
    """The ``Report`` in the JSON file ``path`` (as ``--format json`` writes it)."""
    summary = f"{path}: not an assay JSON report (write one with --format json --output FILE)"
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


def composite_report_file(path: Path) -> CompositeReport | None:
    """The ``CompositeReport`` in ``path`` when the file is a JSON composite report (as
    ``assay composite --format json`` writes it), else None."""
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


def _refuse(path: Path, found: list[str]) -> None:
    """Refuse a report file whose rows or counts contradict it (``found``, each message
    beginning with the field it names)."""
    if found:
        raise InputFormatError(
            [Problem(p, Location(str(path)), p.split(" ")[0].rstrip(":")) for p in found[:20]],
            f"{path}: the report contradicts its own counts (edited by hand, or damaged); "
            "re-score the results to get a consistent report",
        )
