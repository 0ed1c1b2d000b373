"""Loading datasets and results from files into the core's values."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from assay.cases import Case, Dataset, parse_dataset
from assay.errors import MAX_TRIALS, InputFormatError, Location, Problem, did_you_mean
from assay.load._changelog import change_for, has_changelog
from assay.load._records import parsed, stream_records
from assay.load._sources import with_sources
from assay.outcomes import (
    Record,
    Results,
    Trialled,
    parse_result_line,
    parse_results,
    trials_beyond,
)

_CSV_LISTS = ("accepted_facts", "required", "disallowed")


def csv_case(raw: Any) -> Any:
    """CSV cells are strings: split list columns on '|'. Boolean cells stay strings and are
    read by the case model, as a string in JSONL, YAML or JSON is: one strict parser for
    every format (an unknown value is an error at its line, never false)."""
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    for key in _CSV_LISTS:
        if key in out:
            out[key] = [p.strip() for p in str(out[key]).split("|") if p.strip()]
    return out


def _check_columns(path: Path, columns: list[str]) -> None:
    """Reject unknown CSV columns once, at the header line, with the closest field name."""
    known = sorted(set(Case.model_fields) - {"messages", "metadata"})
    problems = [
        Problem(f'unknown column "{c}"{did_you_mean(c, known)}', Location(str(path), 1), c)
        for c in columns
        if c not in known
    ]
    if problems:
        raise InputFormatError(problems, summary=f"{path}: invalid dataset")


def load_dataset(path: str | Path, name: str | None = None) -> Dataset:
    """A validated dataset from a JSONL, YAML, JSON or CSV file.

    YAML and JSON may be a list of cases or a mapping ``{name, cases: [...]}``. The name
    defaults to the file's stem; a header ``sources: file`` attaches source snapshots
    (see ``load_sources``). Every problem is reported at once with file and line.
    """
    p = Path(path)
    records, header, lines = stream_records(p, "cases", shared=False)  # parse_dataset shares
    if p.suffix.lower() == ".csv":
        _check_columns(p, header.get("columns", []))
        records = [(loc, csv_case(raw)) for loc, raw in records]
        header = {}
    unknown = sorted(set(header) - {"name", "description", "sources"})
    if unknown:
        raise InputFormatError(
            [Problem(f'unknown top-level field "{k}"', Location(str(p), 1), k) for k in unknown],
            summary=f"{p}: invalid dataset",
        )
    dataset_name = name or str(header.get("name") or p.stem)
    dataset = parsed(lines, lambda: parse_dataset(dataset_name, records, str(p)))
    if "sources" in header:
        dataset = with_sources(dataset, header["sources"], p)

    if has_changelog(p):
        dataset = dataclasses.replace(dataset, change=change_for(p, dataset.version))
    return dataset


def load_results(path: str | Path) -> Results:
    """Recorded outcomes from a JSONL (or JSON/YAML list) results file, each with its line.

    A file with no results (empty, ``[]``, a CSV header alone) is valid: nothing was
    recorded, and every case scores as missing.
    """
    p = Path(path)
    records, header, lines = stream_records(p, "results", allow_empty=True)
    problems = [
        Problem(f'unknown top-level field "{k}"', Location(str(p), 1), k)
        for k in sorted(set(header) - {"columns"})
    ]
    if problems:
        raise InputFormatError(problems, summary=f"{p}: invalid results")
    results = parsed(lines, lambda: parse_results(records, str(p)))
    refuse_trials_beyond(results.records, results.locations, p)
    return results


def refuse_trials_beyond(
    lines: Sequence[Trialled], locations: Sequence[Location | None], path: Path
) -> None:
    """Refuse trial numbers that would blow a report up, each at its line.

    The highest trial number is the trial count (a gap is a warning: see
    ``trial_gaps``). One line with ``"trial": 100000`` would make every other case
    "missing" that many times over: a trial number above ``MAX_TRIALS``, or one that
    makes the cases × trials the file implies far more than the lines it holds, is
    refused (``trials_beyond``, the bound every reader of results applies), located,
    instead. ``lines`` are a results file's records, or a composite results file's
    outcome and checks lines.
    """
    allowed, cases, beyond = trials_beyond(lines)
    problems = [
        Problem(
            f"trial {lines[i].trial} is beyond the {allowed:,} trials a file of "
            f"{len(lines):,} results over {cases:,} cases may number "
            f"(at most {MAX_TRIALS:,}); number the trials of each case from 1",
            locations[i] if locations else None,
            "trial",
        )
        for i in beyond
    ]
    if problems:
        shown = problems[:20]
        if len(problems) > len(shown):
            shown.append(Problem(f"… and {len(problems) - len(shown)} more", Location(str(path))))
        raise InputFormatError(shown, summary=f"{path}: invalid results")


class NotStreamable(Exception):
    """The results file is not one ``plain_records`` reads: read it with ``load_results``,
    which says what is wrong with it, if anything."""


def plain_records(path: str | Path) -> Iterator[Record]:
    """The records of a JSON Lines results file, each parsed as its line is read (see
    ``streamed_report``, which shares the strings it keeps); raises ``NotStreamable`` as
    soon as a line is not a valid result, or at the end when no line was. A file of
    another type is not streamed."""
    p = Path(path)
    _, _, lines = stream_records(p, "results", allow_empty=True, shared=False)
    if lines is None:
        raise NotStreamable(p)
    count = 0
    for where, raw in lines:
        record = parse_result_line(raw, where)
        if isinstance(record, list):
            raise NotStreamable(p)
        count += 1
        yield record
    if lines.problems or not count:
        raise NotStreamable(p)
