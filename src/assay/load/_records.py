"""Reading a data file into located raw records: JSONL, JSON, YAML or CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from assay.errors import InputFormatError, Location, Problem

LocatedRecords = list[tuple[Location, Any]]
SUFFIXES = (".jsonl", ".json", ".yaml", ".yml", ".csv")


def _fail(path: Path, message: str, line: int | None = None) -> InputFormatError:
    return InputFormatError(
        [Problem(message, Location(str(path), line))], summary=f"{path}: cannot read"
    )


def read_text(path: Path) -> str:
    """The file's text, or a clear error for a missing file, a directory or bad encoding."""
    if not path.exists():
        raise _fail(path, "no such file")
    if path.is_dir():
        raise _fail(path, "is a directory, expected a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise _fail(path, f"is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise _fail(path, f"cannot be read: {err.strerror}") from None
    if not text.strip():
        raise _fail(path, "is empty")
    return text


def _jsonl(path: Path, text: str) -> LocatedRecords:
    records: LocatedRecords = []
    problems: list[Problem] = []
    # Split on newlines only: str.splitlines() also breaks at U+0085, U+2028 and other
    # characters a JSON string may legally contain unescaped.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append((Location(str(path), number), json.loads(line)))
        except json.JSONDecodeError as err:
            problems.append(
                Problem(
                    f"malformed JSON: {err.msg} (column {err.colno})", Location(str(path), number)
                )
            )
    if problems:
        raise InputFormatError(problems, summary=f"{path}: malformed JSON Lines")
    return records


def _json(path: Path, text: str, key: str) -> tuple[LocatedRecords, dict[str, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise _fail(path, f"malformed JSON: {err.msg}", err.lineno) from None
    header: dict[str, Any] = {}
    if isinstance(data, dict) and key in data:
        header = {k: v for k, v in data.items() if k != key}
        data = data[key]
    if not isinstance(data, list):
        raise _fail(path, f"expected a list of records (or an object with a '{key}' list)")
    # JSON has no per-item line numbers without a custom parser; the item index stands in.
    return [(Location(str(path), None), item) for item in data], header


def _yaml(path: Path, text: str, key: str) -> tuple[LocatedRecords, dict[str, Any]]:
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        raise _fail(path, f"malformed YAML: {problem}", line) from None
    if root is None:
        raise _fail(path, "is empty")
    header: dict[str, Any] = {}
    items_node = root
    if isinstance(root, yaml.MappingNode):
        for k_node, v_node in root.value:
            if k_node.value == key:
                items_node = v_node
            else:
                header[k_node.value] = yaml.safe_load(yaml.serialize(v_node))
        if items_node is root:
            raise _fail(path, f"expected a list of records or a mapping with a '{key}' list", 1)
    if not isinstance(items_node, yaml.SequenceNode):
        raise _fail(path, f"'{key}' must be a list", items_node.start_mark.line + 1)
    records: LocatedRecords = []
    for node in items_node.value:
        value = yaml.safe_load(yaml.serialize(node))
        records.append((Location(str(path), node.start_mark.line + 1), value))
    return records, header


def _csv(path: Path, text: str) -> tuple[LocatedRecords, dict[str, Any]]:
    """Rows keyed by the header, each located at the line it starts on.

    The header's column names come back as ``{"columns": [...]}`` so callers can check them
    once, at line 1, instead of once per row.
    """
    reader = csv.DictReader(io.StringIO(text))
    records: LocatedRecords = []
    problems: list[Problem] = []
    for row in reader:
        # A quoted cell may span lines; the row starts that many lines before the reader.
        spanned = sum(v.count("\n") for v in row.values() if isinstance(v, str))
        location = Location(str(path), reader.line_num - spanned)
        if row.get(None):
            problems.append(Problem("the row has more cells than the header has columns", location))
        cleaned: dict[str, Any] = {k: v for k, v in row.items() if k and v not in (None, "")}
        records.append((location, cleaned))
    if problems:
        raise InputFormatError(problems, summary=f"{path}: malformed CSV")
    return records, {"columns": list(reader.fieldnames or [])}


def read_records(path: Path, key: str) -> tuple[LocatedRecords, dict[str, Any]]:
    """Located records from ``path`` and the file's header fields (YAML/JSON mappings)."""
    text = read_text(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl(path, text), {}
    if suffix == ".json":
        return _json(path, text, key)
    if suffix in (".yaml", ".yml"):
        return _yaml(path, text, key)
    if suffix == ".csv":
        return _csv(path, text)
    raise _fail(path, f"unknown file type '{suffix}'; use one of {', '.join(SUFFIXES)}")
