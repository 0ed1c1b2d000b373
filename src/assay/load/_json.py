"""JSON Lines and JSON files into located records, rejecting duplicate keys.

A JSON object that names a key twice silently keeps the last value in most parsers; a
label could change without anyone seeing it, so assay refuses such a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from assay.errors import InputFormatError, Location, Problem
from assay.load._limits import MAX_DEPTH, may_hold_surrogates, number_problem, value_problems

LocatedRecords = list[tuple[Location, Any]]
_MAX_PROBLEMS = 1_000  # a file of garbage gets a readable message, not one line per line


class _DuplicateKey(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(f'duplicate key "{key}"')
        out[key] = value
    return out


def loads(text: str) -> Any:
    """``json.loads`` that raises ``ValueError`` on an object with a repeated key."""
    return json.loads(text, object_pairs_hook=_unique)


# Values at most this long are shared between the lines of one file: the slices, labels,
# kinds and facts repeated on every line then cost their memory once.
_SHARED_VALUE_LENGTH = 64


def _sharing(memo: dict[str, str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An object hook like ``_unique`` that reuses one string object per repeated value."""
    share = memo.setdefault

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            _unique(pairs)  # raises, naming the first repeated key
        for key, value in pairs:
            if type(value) is str and len(value) <= _SHARED_VALUE_LENGTH:
                out[key] = share(value, value)
        return out

    return unique


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _flat(value: Any) -> bool:
    """Whether ``value`` is an object of scalars only: nothing ``value_problems`` could
    refuse in it but a lone surrogate."""
    return type(value) is dict and _SCALARS.issuperset(map(type, value.values()))


def _decode_problem(err: ValueError | RecursionError) -> str:
    """The message for a JSON text Python's decoder refuses beyond its syntax."""
    if isinstance(err, RecursionError):
        return f"nested deeper than {MAX_DEPTH} levels"
    if isinstance(err, json.JSONDecodeError):
        return f"malformed JSON: {err.msg} (column {err.colno})"
    return number_problem(err) or str(err)


def read_jsonl(path: Path, text: str) -> LocatedRecords:
    """One record per non-blank line, located by line; every bad line reported at once."""
    lines = JsonLines(path, text)
    records = list(lines)
    lines.check()
    return records


class JsonLines:
    """The records of a JSON Lines text, decoded one line at a time as they are iterated
    (once), so that a caller that turns each into a value of its own never holds them
    all. Lines that cannot be decoded are kept as problems: ``check`` raises them, as
    ``read_jsonl`` does, and they take precedence over what is wrong with the records.
    """

    def __init__(self, path: Path, text: str, shared: bool = True) -> None:
        self.path = path
        self.problems: list[Problem] = []
        self._text: str | None = text
        self._shared = shared

    def check(self) -> None:
        """Raise the problems of the lines read so far, every one at once."""
        if self.problems:
            raise InputFormatError(self.problems, summary=f"{self.path}: malformed JSON Lines")

    def __iter__(self) -> Iterator[tuple[Location, Any]]:
        text, self._text = self._text, None
        if text is None:
            raise RuntimeError("the lines of a JSON Lines text are read once")
        problems = self.problems
        surrogates = may_hold_surrogates(text)
        source = str(self.path)
        memo: dict[str, str] = {}
        hook = _sharing(memo)
        # One decoder for every line: what json.loads(line, object_pairs_hook=hook) does
        # but refuse a leading byte-order mark, which such lines are left to json.loads for.
        decode = json.JSONDecoder(object_pairs_hook=hook).decode
        quick = _quick_decoder(memo if self._shared else None, plain="\\" not in text)
        # Split on newlines only: str.splitlines() also breaks at U+0085, U+2028 and other
        # characters a JSON string may legally contain unescaped.
        for number, line in enumerate(text_lines(text), start=1):
            where = Location(source, number)
            value = quick(line)
            if value is not None:
                yield where, value
                continue
            if not line.strip():
                continue
            try:
                if line.startswith("\ufeff"):
                    value = json.loads(line, object_pairs_hook=hook)
                else:
                    value = decode(line)
            except _DuplicateKey as err:
                problems.append(Problem(str(err), where))
                continue
            except (ValueError, RecursionError) as err:
                problems.append(Problem(_decode_problem(err), where))
                continue
            if not surrogates and _flat(value):
                yield where, value
                continue
            bad = value_problems(value, surrogates)
            if bad:
                problems.extend(Problem(message, where) for message in bad)
            else:
                yield where, value
            if len(problems) >= _MAX_PROBLEMS:
                problems.append(Problem("… and possibly more; fix these first", where))
                break


_NONE = type(None)
_QUICK_TYPES = frozenset({str, int, bool, _NONE})


def _quick_decoder(
    memo: dict[str, str] | None, plain: bool
) -> Callable[[str], dict[str, Any] | None]:
    """A decoder for the usual line, an object of strings, integers, booleans and nulls
    without a backslash: the object ``decode`` with ``_sharing(memo)`` makes of it (memo
    None: each string its own object), or None for any other line (which is then decoded
    the usual way, with the usual messages). ``plain``: the text holds no backslash."""
    if memo is None:
        return quick_line_decoder(None, plain)
    return quick_line_decoder(memo.setdefault, plain)


def quick_line_decoder(
    share: Callable[[str, str], str] | None, plain: bool
) -> Callable[[str], dict[str, Any] | None]:
    """``_quick_decoder``'s decoder, sharing strings through ``share`` when given.

    orjson decodes such a line several times quicker but keeps the last of a repeated key;
    without a backslash every quote of the line opens or closes a string, so the line
    names a key twice exactly when it holds more quotes than the object's keys and string
    values need. Floats are left to Python's decoder, whose rounding is the reference.
    """
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return _no_quick_line
    loads, error = orjson.loads, orjson.JSONDecodeError
    types = _QUICK_TYPES.issuperset

    def quick(line: str) -> dict[str, Any] | None:
        if not line.startswith("{") or not (plain or "\\" not in line):
            return None
        try:
            value = loads(line)
        except error:
            return None
        if type(value) is not dict:
            return None
        kinds = list(map(type, value.values()))
        strings = kinds.count(str)
        if not types(kinds) or line.count('"') != 2 * (len(value) + strings):
            return None
        if share is None:
            return value
        if strings == len(kinds) - kinds.count(_NONE):
            # Strings and nulls alone (a null shares as itself; a boolean would not, True
            # being equal to 1): each short string shared without a Python loop.
            items = value.values()
            if max(map(len, filter(None, items)), default=0) <= _SHARED_VALUE_LENGTH:
                return dict(zip(value, map(share, items, items), strict=True))
        for key, item in value.items():
            if type(item) is str and len(item) <= _SHARED_VALUE_LENGTH:
                value[key] = share(item, item)
        return value

    return quick


def _no_quick_line(line: str) -> None:
    return None


def text_lines(text: str, start: int = 0, stop: int | None = None) -> Iterator[str]:
    """The lines of ``text`` (of ``text[start:stop]``) split on newlines only, one at a
    time."""
    stop = len(text) if stop is None else stop
    while True:
        end = text.find("\n", start, stop)
        if end < 0:
            yield text[start:stop]
            return
        yield text[start:end]
        start = end + 1


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _array_starts(text: str, i: int) -> list[int]:
    """Offsets where each item of the array opening at ``text[i]`` begins."""
    decoder = json.JSONDecoder()
    starts: list[int] = []
    i = _skip(text, i + 1)
    while i < len(text) and text[i] != "]":
        starts.append(i)
        _, i = decoder.raw_decode(text, i)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
    return starts


def _item_starts(text: str, key: str) -> list[int]:
    """Offsets of the records of a JSON list, or of the ``key`` list of a JSON object."""
    decoder = json.JSONDecoder()
    i = _skip(text, 0)
    if text.startswith("[", i):
        return _array_starts(text, i)
    i = _skip(text, i + 1)
    while i < len(text) and text[i] != "}":
        name, i = decoder.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past the colon
        if name == key and text.startswith("[", i):
            return _array_starts(text, i)
        _, i = decoder.raw_decode(text, i)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
    return []


def read_json(path: Path, text: str, key: str) -> tuple[LocatedRecords, dict[str, Any]]:
    """Records of a JSON list, or of an object's ``key`` list (its other keys: the header)."""

    def fail(message: str, line: int | None = None) -> InputFormatError:
        return InputFormatError(
            [Problem(message, Location(str(path), line))], summary=f"{path}: cannot read"
        )

    try:
        data = loads(text)
    except json.JSONDecodeError as err:
        raise fail(f"malformed JSON: {err.msg}", err.lineno) from None
    except _DuplicateKey as err:
        raise fail(str(err)) from None
    except (ValueError, RecursionError) as err:
        raise fail(_decode_problem(err)) from None
    bad = value_problems(data, may_hold_surrogates(text))
    if bad:
        raise InputFormatError(
            [Problem(m, Location(str(path))) for m in bad], f"{path}: cannot read"
        )
    header: dict[str, Any] = {}
    if isinstance(data, dict) and key in data:
        header = {k: v for k, v in data.items() if k != key}
        data = data[key]
    if not isinstance(data, list):
        raise fail(f"expected a list of records (or an object with a '{key}' list)")
    starts = _item_starts(text, key)
    lines: list[int] = []
    line, previous = 1, 0
    for start in starts:  # counted onward from the previous item: linear in the file
        line += text.count("\n", previous, start)
        previous = start
        lines.append(line)
    if len(lines) != len(data):
        lines = [None] * len(data)  # type: ignore[list-item]
    return [
        (Location(str(path), line), item) for line, item in zip(lines, data, strict=True)
    ], header
