"""Validating a dataset file: every problem at once, schema errors included, as findings.

Unlike ``load_dataset``, which stops at the first invalid file, this reads every record it
can, reports the invalid ones, and runs the dataset rules (``lint_cases``) on the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.cases import (
    EMPTY_SOURCES,
    Case,
    Finding,
    NearSettings,
    find_clusters,
    lint_cases,
    parse_case,
)
from assay.errors import InputFormatError, Location, Problem
from assay.load._files import _check_columns, csv_case
from assay.load._records import read_records
from assay.load._sources import header_sources, load_sources, merge_sources

_FIXES = {
    "malformed": "fix the syntax on that line",
    "schema": "fix the field as the message says (docs/formats.md lists every field)",
    "header": "remove the field, or move it under metadata",
    "sources": "fix the sources file (docs/formats.md, source snapshots)",
}


@dataclass(frozen=True)
class LintResult:
    """The findings on a dataset file and the cases that were valid enough to check."""

    path: Path
    findings: tuple[Finding, ...]
    cases: tuple[Case, ...]

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)


def _as_findings(problems: tuple[Problem, ...] | list[Problem], code: str) -> list[Finding]:
    return [Finding(code, "error", p.location, p.message, _FIXES[code], None) for p in problems]


def lint_file(
    path: Path,
    sources: Path | None = None,
    strict: bool = False,
    near: NearSettings | None = None,
    progress: Callable[[int], None] | None = None,
    sized: Callable[[int], None] | None = None,
) -> LintResult:
    """Every problem in the dataset at ``path``; ``sources`` adds source snapshots.

    ``sized`` is told how many valid cases were read before the near-duplicate search,
    which then calls ``progress`` with the number of cases just compared.

    A file that cannot be read at all (missing, not UTF-8, malformed JSON or YAML) gives
    its read errors as findings and no cases.
    """
    try:
        records, header = read_records(path, "cases")
        if path.suffix.lower() == ".csv":
            _check_columns(path, header.get("columns", []))
            records = [(loc, csv_case(raw)) for loc, raw in records]
            header = {}
    except InputFormatError as err:
        return LintResult(path, tuple(_as_findings(err.problems, "malformed")), ())
    findings: list[Finding] = []
    for key in sorted(set(header) - {"name", "description", "sources"}):
        findings += _as_findings(
            [Problem(f'unknown top-level field "{key}"', Location(str(path), 1), key)], "header"
        )
    cases: list[Case] = []
    locations: list[Location | None] = []
    for location, raw in records:
        parsed = parse_case(raw, location)
        if isinstance(parsed, Case):
            cases.append(parsed)
            locations.append(location)
        else:
            for problem in parsed:
                case_id = raw.get("id") if isinstance(raw, dict) else None
                findings.append(
                    Finding(
                        "schema",
                        "error",
                        problem.location,
                        problem.message,
                        _FIXES["schema"],
                        case_id if isinstance(case_id, str) else None,
                    )
                )
    if not records:
        findings += _as_findings(
            [Problem("the dataset has no cases", Location(str(path)))], "schema"
        )
    library = EMPTY_SOURCES
    try:
        if "sources" in header:
            library = header_sources(header["sources"], path)
        if sources is not None:
            library = merge_sources(library, load_sources(sources))
    except InputFormatError as err:
        findings += _as_findings(err.problems, "sources")
    if sized is not None:
        sized(len(cases))
    clusters = find_clusters(cases, near, progress)
    findings += lint_cases(cases, locations, clusters, library, strict)
    order = sorted(findings, key=lambda f: (f.location.line or 0) if f.location is not None else 0)
    return LintResult(path, tuple(order), tuple(cases))
