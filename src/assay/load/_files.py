"""Loading datasets and results from files into the core's values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.cases import Dataset, parse_dataset
from assay.errors import InputFormatError, Location, Problem
from assay.load._records import read_records
from assay.outcomes import Results, parse_results

_CSV_LISTS = ("accepted_facts",)


def _csv_case(raw: Any) -> Any:
    """CSV cells are strings: split list columns on '|' and read booleans."""
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    for key in _CSV_LISTS:
        if key in out:
            out[key] = [p.strip() for p in str(out[key]).split("|") if p.strip()]
    if "synthetic" in out:
        out["synthetic"] = str(out["synthetic"]).strip().lower() in ("1", "true", "yes")
    return out


def load_dataset(path: str | Path, name: str | None = None) -> Dataset:
    """A validated dataset from a JSONL, YAML, JSON or CSV file.

    YAML and JSON may be a list of cases or a mapping ``{name, cases: [...]}``. The name
    defaults to the file's stem. Every problem is reported at once with file and line.
    """
    p = Path(path)
    records, header = read_records(p, "cases")
    unknown = sorted(set(header) - {"name", "description"})
    if unknown:
        raise InputFormatError(
            [Problem(f'unknown top-level field "{k}"', Location(str(p), 1), k) for k in unknown],
            summary=f"{p}: invalid dataset",
        )
    if p.suffix.lower() == ".csv":
        records = [(loc, _csv_case(raw)) for loc, raw in records]
    dataset_name = name or str(header.get("name") or p.stem)
    return parse_dataset(dataset_name, records, str(p))


def load_results(path: str | Path) -> Results:
    """Recorded outcomes from a JSONL (or JSON/YAML list) results file, each with its line."""
    p = Path(path)
    records, _ = read_records(p, "results")
    return parse_results(records, str(p))
