"""Reading a data file into located raw records: JSONL, JSON, YAML or CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from assay.errors import InputFormatError, Location, Problem
from assay.load._json import JsonLines, read_json, read_jsonl
from assay.load._limits import (
    MAX_CSV_CELL,
    MAX_DEPTH,
    bounded_yaml_loader,
    fail,
    may_hold_surrogates,
    number_problem,
    read_bounded,
    value_problems,
    yaml_problems,
)

LocatedRecords = list[tuple[Location, Any]]
SUFFIXES = (".jsonl", ".json", ".yaml", ".yml", ".csv")


def _fail(path: Path, message: str, line: int | None = None) -> InputFormatError:
    return fail(path, message, line)


def yaml_error(
    path: Path, err: Exception, summary: str | None = None, text: str | None = None
) -> InputFormatError:
    """The located ``malformed YAML`` error for a PyYAML parse error in ``path`` (whose
    ``text``, when given, bounds the line: libyaml marks the end of the file past its last
    line)."""
    mark = getattr(err, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    if line is not None and text is not None:
        line = max(1, min(line, text.count("\n") + (not text.endswith("\n"))))
    problem = getattr(err, "problem", None) or str(err)
    message = f"malformed YAML: {problem}"
    if "maximum nesting depth" in problem:  # libyaml's own bound, far above assay's
        message = f"nested deeper than {MAX_DEPTH} levels"
    elif "invalid Unicode character escape" in problem:  # libyaml refuses \ud800 itself
        message = (
            "a string holds a lone UTF-16 surrogate (an escape like \\ud800 without its "
            "pair) or an escape beyond Unicode, which is not text"
        )
    return InputFormatError(
        [Problem(message, Location(str(path), line))],
        summary=summary or f"{path}: cannot read",
    )


def read_text(path: Path, allow_empty: bool = False) -> str:
    """The text of the regular file ``path`` (at most ``MAX_FILE_BYTES``), or a clear error
    for a missing file, a directory, a device or FIFO, an oversized file or bad encoding;
    an empty (or blank) file is an error unless ``allow_empty``."""
    data = read_bounded(path)
    try:
        # utf-8-sig: a byte-order mark some editors write is not part of the first record.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise _fail(path, f"is not UTF-8 text ({err.reason} at byte {err.start})") from None
    if not text.strip() and not allow_empty:
        raise _fail(path, "is empty")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise _fail(path, "holds a NUL character; it is not a text file", line)
    return text


def compose_yaml(path: Path, text: str, summary: str | None = None) -> Any:
    """The composed node graph of a YAML document, refused (located) when it is malformed
    or breaks a limit of ``yaml_problems``."""
    import yaml

    try:
        root = yaml.compose(text, Loader=bounded_yaml_loader())
    except yaml.YAMLError as err:
        raise yaml_error(path, err, summary, text) from None
    except RecursionError:
        raise _fail(path, f"nested deeper than {MAX_DEPTH} levels") from None
    if root is None:
        return None
    problems = yaml_problems(root, path)
    if problems:
        raise InputFormatError(problems, summary=summary or f"{path}: cannot read")
    return root


def key_lines(root: Any) -> dict[str, int]:
    """The line of each key of a composed YAML document, by its dotted path (list items
    as ``key[i]``): where a problem with that key is reported."""
    import yaml

    lines: dict[str, int] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                path = f"{prefix}.{key.value}" if prefix else str(key.value)
                lines[path] = key.start_mark.line + 1
                walk(value, path)
        elif isinstance(node, yaml.SequenceNode) and prefix:
            for i, item in enumerate(node.value):
                lines[f"{prefix}[{i}]"] = item.start_mark.line + 1
                walk(item, f"{prefix}[{i}]")

    walk(root, "")
    return lines


def key_location(path: Path, lines: dict[str, int], dotted: str) -> Location:
    """The file and line of the key ``dotted`` (or of its nearest written parent) in
    ``lines`` (``key_lines``); line 1 when none is written."""
    parts = dotted.split(".")
    while parts:
        line = lines.get(".".join(parts))
        if line is not None:
            return Location(str(path), line)
        parts.pop()
    return Location(str(path), 1)


def checked(path: Path, value: Any, line: int | None, surrogates: bool) -> Any:
    """``value`` when it keeps the limits of ``value_problems``, else a located error."""
    problems = value_problems(value, surrogates)
    if problems:
        raise InputFormatError(
            [Problem(message, Location(str(path), line)) for message in problems],
            summary=f"{path}: cannot read",
        )
    return value


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

    text = read_text(path)
    root = compose_yaml(path, text, f"{path}: cannot read {what}")
    if root is None:
        raise _fail(path, "is empty")
    repeated = repeated_yaml_keys(root, path)
    if repeated:
        raise InputFormatError(repeated, summary=f"{path}: invalid {what}")
    data = construct_yaml(root, path)
    return checked(path, data, None, may_hold_surrogates(text))


def construct_yaml(node: Any, path: Path) -> Any:
    """The plain value of one composed YAML node (safe types only), located on failure."""
    import yaml

    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or node.start_mark
        problem = getattr(err, "problem", None) or str(err)
        raise _fail(path, f"malformed YAML: {problem}", mark.line + 1) from None
    except ValueError as err:  # an integer over Python's digit limit
        raise _fail(path, number_problem(err) or str(err), node.start_mark.line + 1) from None
    finally:
        loader.dispose()


def _yaml(path: Path, text: str, key: str) -> tuple[LocatedRecords, dict[str, Any]]:
    import yaml

    root = compose_yaml(path, text)
    if root is None:
        raise _fail(path, "is empty")
    repeated = repeated_yaml_keys(root, path)
    if repeated:
        raise InputFormatError(repeated, summary=f"{path}: malformed YAML")
    surrogates = may_hold_surrogates(text)
    header: dict[str, Any] = {}
    items_node = root
    if isinstance(root, yaml.MappingNode):
        for k_node, v_node in root.value:
            if k_node.value == key:
                items_node = v_node
            else:
                header[k_node.value] = checked(
                    path, construct_yaml(v_node, path), v_node.start_mark.line + 1, surrogates
                )
        if items_node is root:
            raise _fail(path, f"expected a list of records or a mapping with a '{key}' list", 1)
    if not isinstance(items_node, yaml.SequenceNode):
        raise _fail(path, f"'{key}' must be a list", items_node.start_mark.line + 1)
    records: LocatedRecords = []
    for node in items_node.value:
        line = node.start_mark.line + 1
        value = checked(path, construct_yaml(node, path), line, surrogates)
        records.append((Location(str(path), line), value))
    return records, header


def _csv(path: Path, text: str) -> tuple[LocatedRecords, dict[str, Any]]:
    """Rows keyed by the header, each located at the line it starts on.

    The header's column names come back as ``{"columns": [...]}`` so callers can check them
    once, at line 1, instead of once per row.
    """
    reader = csv.DictReader(io.StringIO(text))
    records: LocatedRecords = []
    problems: list[Problem] = []
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as err:
            message = str(err)
            if "field larger than field limit" in message:
                message = f"a cell is longer than {MAX_CSV_CELL:,} characters"
            raise _fail(path, f"malformed CSV: {message}", reader.line_num or None) from None
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
    text = read_text(path, allow_empty=allow_empty and suffix in SUFFIXES)
    if not text.strip():
        return [], {}
    if suffix == ".jsonl":
        return read_jsonl(path, text), {}
    if suffix == ".json":
        return read_json(path, text, key)
    if suffix in (".yaml", ".yml"):
        return _yaml(path, text, key)
    if suffix == ".csv":
        return _csv(path, text)
    raise _fail(path, f"unknown file type '{suffix}'; use one of {', '.join(SUFFIXES)}")


T = TypeVar("T")


def stream_records(
    path: Path, key: str, allow_empty: bool = False, shared: bool = True
) -> tuple[Iterable[tuple[Location, Any]], dict[str, Any], JsonLines | None]:
    """``read_records``, but the records of a JSON Lines file are decoded as they are
    iterated (``JsonLines``, returned third: give it to ``parsed``), so that each line's
    raw record is freed once its value is made (``shared``: see ``JsonLines``)."""
    if path.suffix.lower() != ".jsonl":
        records, header = read_records(path, key, allow_empty)
        return records, header, None
    text = read_text(path, allow_empty=allow_empty)
    if not text.strip():
        return [], {}, None
    lines = JsonLines(path, text, shared)
    return lines, {}, lines


def parsed(lines: JsonLines | None, parse: Callable[[], T]) -> T:
    """``parse()`` of records from ``stream_records``, raising what ``read_records``
    would have raised first: the lines that could not be decoded, whatever else ``parse``
    found wrong."""
    try:
        value = parse()
    except Exception:
        if lines is not None:
            lines.check()
        raise
    if lines is not None:
        lines.check()
    return value
