"""Reading a data file into located raw records: JSONL, JSON, YAML or CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from assay.errors import InputFormatError, Location, Problem
from assay.load._json import read_json, read_jsonl

LocatedRecords = list[tuple[Location, Any]]
SUFFIXES = (".jsonl", ".json", ".yaml", ".yml", ".csv")


def _fail(path: Path, message: str, line: int | None = None) -> InputFormatError:
    return InputFormatError(
        [Problem(message, Location(str(path), line))], summary=f"{path}: cannot read"
    )


def yaml_error(path: Path, err: Exception, summary: str | None = None) -> InputFormatError:
    """The located ``malformed YAML`` error for a PyYAML parse error in ``path``."""
    mark = getattr(err, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    problem = getattr(err, "problem", None) or str(err)
    return InputFormatError(
        [Problem(f"malformed YAML: {problem}", Location(str(path), line))],
        summary=summary or f"{path}: cannot read",
    )


def read_text(path: Path) -> str:
    """The file's text, or a clear error for a missing file, a directory or bad encoding."""
    if not path.exists():
        raise _fail(path, "no such file")
    if path.is_dir():
        raise _fail(path, "is a directory, expected a file")
    try:
        # utf-8-sig: a byte-order mark some editors write is not part of the first record.
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise _fail(path, f"is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise _fail(path, f"cannot be read: {err.strerror}") from None
    if not text.strip():
        raise _fail(path, "is empty")
    return text


def repeated_yaml_keys(root: Any, path: Path) -> list[Problem]:
    """A problem for every mapping key written twice (YAML parsers keep the last silently)."""
    import yaml

    problems: list[Problem] = []
    stack, seen_nodes = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for k_node, v_node in node.value:
                if isinstance(k_node, yaml.ScalarNode):
                    if k_node.value in keys:
                        where = Location(str(path), k_node.start_mark.line + 1)
                        problems.append(Problem(f'duplicate key "{k_node.value}"', where))
                    keys.add(k_node.value)
                stack.append(v_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(problems, key=lambda p: p.location.line if p.location and p.location.line else 0)


def read_yaml(path: Path, what: str) -> Any:
    """The data of a YAML (or JSON) file, refusing malformed YAML and repeated keys with
    file and line; ``what`` names the file's kind in the error ("sources", "profile")."""
    import yaml

    text = read_text(path)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise yaml_error(path, err, f"{path}: cannot read {what}") from None
    repeated = repeated_yaml_keys(root, path)
    if repeated:
        raise InputFormatError(repeated, summary=f"{path}: invalid {what}")
    return data


def _construct(node: Any, path: Path) -> Any:
    """The plain value of one composed YAML node (safe types only), located on failure."""
    import yaml

    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or node.start_mark
        problem = getattr(err, "problem", None) or str(err)
        raise _fail(path, f"malformed YAML: {problem}", mark.line + 1) from None
    finally:
        loader.dispose()


def _yaml(path: Path, text: str, key: str) -> tuple[LocatedRecords, dict[str, Any]]:
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        raise yaml_error(path, err) from None
    if root is None:
        raise _fail(path, "is empty")
    repeated = repeated_yaml_keys(root, path)
    if repeated:
        raise InputFormatError(repeated, summary=f"{path}: malformed YAML")
    header: dict[str, Any] = {}
    items_node = root
    if isinstance(root, yaml.MappingNode):
        for k_node, v_node in root.value:
            if k_node.value == key:
                items_node = v_node
            else:
                header[k_node.value] = _construct(v_node, path)
        if items_node is root:
            raise _fail(path, f"expected a list of records or a mapping with a '{key}' list", 1)
    if not isinstance(items_node, yaml.SequenceNode):
        raise _fail(path, f"'{key}' must be a list", items_node.start_mark.line + 1)
    records: LocatedRecords = []
    for node in items_node.value:
        value = _construct(node, path)
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


def read_records(
    path: Path, key: str, allow_empty: bool = False
) -> tuple[LocatedRecords, dict[str, Any]]:
    """Located records from ``path`` and the file's header fields (YAML/JSON mappings);
    an empty file is refused unless ``allow_empty`` (then it has no records)."""
    suffix = path.suffix.lower()
    if allow_empty and suffix in SUFFIXES and path.is_file():
        try:
            if not path.read_text(encoding="utf-8-sig").strip():
                return [], {}
        except (OSError, UnicodeDecodeError):
            pass  # read_text below says what is wrong
    text = read_text(path)
    if suffix == ".jsonl":
        return read_jsonl(path, text), {}
    if suffix == ".json":
        return read_json(path, text, key)
    if suffix in (".yaml", ".yml"):
        return _yaml(path, text, key)
    if suffix == ".csv":
        return _csv(path, text)
    raise _fail(path, f"unknown file type '{suffix}'; use one of {', '.join(SUFFIXES)}")
