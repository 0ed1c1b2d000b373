"""Importing cases from foreign tables: a CSV file or a Hugging Face dataset saved to disk.

A column mapping names, for each case field, the column (or nested path) it comes from:
``question=question``, ``expected_fact=answers.text[0]``, ``accepted_facts=answers.text``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.cases import Case, parse_case
from assay.errors import AssayConfigError, InputFormatError, Location, Problem, did_you_mean
from assay.load._records import read_records

MAPPABLE = (
    "id",
    "slice",
    "question",
    "expected_behavior",
    "expected_fact",
    "accepted_facts",
    "rationale",
    "source_revision",
    "group",
    "split",
    "sources",
)
"""Case fields a column may fill. ``sources`` takes a text column as the inline snapshot's
one section (``{"context": text}``)."""

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@dataclass(frozen=True)
class ImportSettings:
    """How rows become cases: the mapping, and defaults for unmapped fields."""

    mapping: Mapping[str, str]
    slice: str | None = None
    id_prefix: str = ""
    synthetic: bool = False

    def __post_init__(self) -> None:
        unknown = sorted(set(self.mapping) - set(MAPPABLE))
        if unknown:
            raise AssayConfigError(
                f"--map {unknown[0]}=…: not a field a column can fill; "
                f"choose among {', '.join(MAPPABLE)}"
            )


def parse_mapping(items: Iterable[str]) -> dict[str, str]:
    """``["question=q", "expected_fact=answers.text[0]"]`` as a field -> column path dict."""
    mapping: dict[str, str] = {}
    for item in items:
        field, sep, column = item.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise AssayConfigError(f"--map {item}: write FIELD=COLUMN, e.g. question=prompt")
        mapping[field.strip()] = column.strip()
    return mapping


def _lookup(row: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` (``a.b[0]``) in ``row``; None when any step is absent."""
    value: Any = row
    for name, index in _STEP.findall(path):
        if name:
            value = value.get(name) if isinstance(value, Mapping) else None
        else:
            i = int(index)
            is_list = isinstance(value, list | tuple)
            value = value[i] if is_list and i < len(value) else None
        if value is None:
            return None
    return value


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _listed(value: Any, csv: bool) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        items = [str(v).strip() for v in value]
    elif csv:
        items = [p.strip() for p in str(value).split("|")]
    else:
        items = [str(value).strip()]
    return tuple(dict.fromkeys(i for i in items if i))


def row_to_record(
    row: Mapping[str, Any], number: int, settings: ImportSettings, csv: bool = False
) -> dict[str, Any]:
    """The case record for one row (row ``number`` counts from 1)."""
    m = settings.mapping
    got = {field: _lookup(row, path) for field, path in m.items()}
    record: dict[str, Any] = {}
    case_id = _text(got.get("id")) or str(number)
    record["id"] = f"{settings.id_prefix}{case_id}"
    record["slice"] = _text(got.get("slice")) or settings.slice
    record["question"] = _text(got.get("question"))
    facts = _listed(got.get("accepted_facts"), csv)
    fact = _text(got.get("expected_fact")) or (facts[0] if facts else None)
    behavior = _text(got.get("expected_behavior")) or ("answer" if fact else "abstain")
    record["expected_behavior"] = behavior
    if behavior == "answer":
        record["expected_fact"] = fact
        others = [f for f in facts if f != fact]
        if others:
            record["accepted_facts"] = others
    for field in ("rationale", "source_revision", "group", "split"):
        value = _text(got.get(field))
        if value is not None:
            record[field] = value
    context = _text(got.get("sources"))
    if context is not None:
        record["sources"] = {"context": context}
    if settings.synthetic:
        record["synthetic"] = True
    return {k: v for k, v in record.items() if v is not None}


def import_rows(
    rows: Iterable[tuple[Location, Mapping[str, Any]]], settings: ImportSettings, csv: bool
) -> list[dict[str, Any]]:
    """Case records for ``rows``, each validated; every invalid row reported at once."""
    records: list[dict[str, Any]] = []
    problems: list[Problem] = []
    seen: dict[str, Location] = {}
    for number, (location, row) in enumerate(rows, start=1):
        record = row_to_record(row, number, settings, csv)
        parsed = parse_case(record, location)
        if not isinstance(parsed, Case):
            problems.extend(parsed)
            continue
        if parsed.id in seen:
            problems.append(Problem(f"id {parsed.id} already used at {seen[parsed.id]}", location))
            continue
        seen[parsed.id] = location
        records.append(record)
    if problems:
        raise InputFormatError(problems[:50], summary="cannot import: rows that are not cases")
    if not records:
        raise AssayConfigError("nothing to import: the source has no rows")
    return records


Rows = Iterator[tuple[Location, Mapping[str, Any]]]


def check_columns(mapping: Mapping[str, str], columns: Iterable[str], where: str) -> None:
    """Refuse a mapping that names a column the source does not have."""
    known = list(columns)
    for field, path in mapping.items():
        steps = _STEP.findall(path)
        root = steps[0][0] if steps else ""
        if root not in known:
            raise AssayConfigError(
                f"--map {field}={path}: {where} has no column '{root}'"
                f"{did_you_mean(root, known)}; it has: {', '.join(known)}"
            )


def csv_rows(path: Path, mapping: Mapping[str, str]) -> Rows:
    """The CSV file's rows keyed by header, each located at its line."""
    records, header = read_records(path, "cases")
    check_columns(mapping, header.get("columns", []), str(path))
    return iter([(loc, raw) for loc, raw in records])


def hf_rows(path: Path, split: str | None, mapping: Mapping[str, str]) -> Rows:
    """Rows of a Hugging Face ``datasets`` dataset saved with ``save_to_disk``.

    Needs the optional ``hf`` extra (``pip install 'assay[hf]'``). A ``DatasetDict`` needs
    ``split`` (e.g. ``validation``) unless it holds one split.
    """
    try:
        import datasets
    except ImportError:
        raise AssayConfigError(
            "importing a Hugging Face dataset needs the datasets package: pip install 'assay[hf]'"
        ) from None
    try:
        loaded = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError, OSError) as err:
        raise AssayConfigError(f"{path}: not a dataset saved with save_to_disk ({err})") from None
    if isinstance(loaded, datasets.DatasetDict):
        names = sorted(loaded)
        if split is None and len(names) == 1:
            split = names[0]
        if split is None or split not in loaded:
            raise AssayConfigError(
                f"{path}: choose a split with --hf-split (it has: {', '.join(names)})"
            )
        loaded = loaded[split]
    where = f"{path}" + (f"[{split}]" if split else "")
    check_columns(mapping, loaded.column_names, where)
    return ((Location(where, i + 1), row) for i, row in enumerate(loaded))
