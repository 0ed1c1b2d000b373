"""A large report's case rows as its HTML page embeds them, packed: the index columns the
page keeps in memory, the searched text and the full rows, each in compressed parts the
page unpacks only when it needs one (see docs/html-report.md, "Large reports")."""

from __future__ import annotations

import base64
import functools
import itertools
import json
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
from isal import igzip
from pydantic import SerializeAsAny, TypeAdapter

from assay.report import ROW_FIELDS, CaseRow, Report, chunked, rendered_chunks, row_of

PACKED_PART_ROWS = 2_000
"""Rows per compressed part of full rows: the page unpacks one part to show one case."""

SEARCH_PART_ROWS = 20_000
"""Rows per compressed part of searched text: the page reads every part at each new
query, and each part costs a fixed few milliseconds besides its size."""

_LEVEL = 1
"""The packed parts' compression level (ISA-L's gzip, whose levels 1 and 2 are its fast
ones): a million rows' parts compress in a fifth of zlib's level 3 time, into fewer bytes
(``bench/html_scale.py``)."""

INDEX_COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "trial": ("trial",),
    "synthetic": ("synthetic",),
    "slice": ("slice",),
    "status": ("status",),
    "reason": ("reason",),
    "expected": ("expected_label", "expected_behavior", "expected_fact"),
    "got": ("outcome_label", "outcome", "fact"),
}
"""The columns a packed page keeps in memory: what the case table shows, filters and sorts
by. A column of several fields has objects of those fields as its distinct values."""

SEARCH_FIELDS = ("question", "text", "rationale")
"""The fields the search box reads besides the index columns: a packed page holds them in
parts of their own, unpacked when it searches (and kept, up to a bound, for the next
query)."""


def _compress(data: bytes) -> str:
    return base64.b64encode(igzip.compress(data, _LEVEL, mtime=0)).decode("ascii")


def packed_rows(rows: Sequence[CaseRow]) -> Iterator[str]:
    """The rows in parts of ``PACKED_PART_ROWS`` rows, each a JSON array of the rows'
    values in ``ROW_FIELDS`` order (``_part_json``), gzip-compressed (no timestamp: the
    same rows give the same bytes) and base64-encoded."""
    for start in range(0, len(rows), PACKED_PART_ROWS):
        yield _compress(_part_json(list(_row_values(rows[start : start + PACKED_PART_ROWS]))))


_row_values = functools.partial(map, operator.attrgetter(*ROW_FIELDS))


def _search_part(rows: Sequence[CaseRow], held: Sequence[tuple[Any, ...]] | None = None) -> str:
    """``_search_json`` compressed."""
    return _compress(_search_json(rows, held))


def _search_json(rows: Sequence[CaseRow], held: Sequence[tuple[Any, ...]] | None) -> bytes:
    """``rows``' searched text as JSON (read from ``held``, their value tuples, when given)."""
    columns = (_column(rows, held, name) for name in SEARCH_FIELDS)
    texts = [f"{q}\n{t or ''}\n{r or ''}" for q, t, r in zip(*columns, strict=True)]
    try:
        return orjson.dumps(texts)
    except orjson.JSONEncodeError:  # a lone surrogate, which UTF-8 cannot hold
        return json.dumps(texts, separators=(",", ":")).encode()


_AT = {name: at for at, name in enumerate(ROW_FIELDS)}


def _column(
    rows: Sequence[CaseRow], held: Sequence[tuple[Any, ...]] | None, field: str
) -> list[Any]:
    """Each row's ``field``, read from ``held`` (the rows' value tuples) when given."""
    if held is not None:
        return list(map(operator.itemgetter(_AT[field]), held))
    return list(map(operator.attrgetter(field), rows))


def packed_search(rows: Sequence[CaseRow]) -> Iterator[str]:
    """Per ``SEARCH_PART_ROWS`` rows: a JSON array of each row's ``SEARCH_FIELDS`` joined
    by newlines (a missing one as empty), compressed as the rows are."""
    for start in range(0, len(rows), SEARCH_PART_ROWS):
        yield _search_part(rows[start : start + SEARCH_PART_ROWS])


_Codes = npt.NDArray[np.uint32]
"""Each row's index into its column's distinct values."""
_Numbers = npt.NDArray[np.int64]
"""Each row's value's number (``_IndexColumns.distinct``)."""
_NONE: _Numbers = np.zeros(0, dtype=np.int64)


class _IndexColumns:
    """The ``INDEX_COLUMNS`` of rows given a chunk at a time: each chunk's columns read
    by ``_chunk_columns``, then merged here in order."""

    def __init__(self) -> None:
        self.distinct: dict[str, dict[Any, int]] = {name: {} for name in INDEX_COLUMNS}
        """Each column's distinct values, in order of first appearance, each with a
        number that grows in that order (not every number is one's: see ``merge``)."""
        self.numbers: dict[str, list[_Numbers]] = {name: [] for name in INDEX_COLUMNS}
        self.rows = 0

    def add(
        self, chunk: Sequence[CaseRow], values: Sequence[tuple[Any, ...]] | None = None
    ) -> None:
        """Add ``chunk``'s rows (read from ``values``, their value tuples, when given)."""
        self.merge(_chunk_columns(chunk, values))

    def merge(self, columns: _Columns) -> None:
        """Add the rows of a chunk whose columns ``_chunk_columns`` read."""
        for name, (keys, codes) in columns.items():
            distinct = self.distinct[name]
            # Each key is offered the next unused number, kept only when it is new: one
            # C-level pass, whose gaps ``finish`` closes.
            offered = itertools.count(self.rows)
            found = map(distinct.setdefault, keys, offered)
            numbers = np.fromiter(found, dtype=np.int64, count=len(keys))
            self.numbers[name].append(numbers[codes])
        self.rows += len(columns["id"][1])

    def finish(self) -> tuple[dict[str, list[Any]], dict[str, tuple[int, str]]]:
        values: dict[str, list[Any]] = {}
        codes: dict[str, tuple[int, str]] = {}
        for name in INDEX_COLUMNS:
            distinct = values[name] = list(self.distinct[name])
            if len(distinct) == self.rows:
                continue  # every value distinct: the codes would be 0, 1, 2, …
            width = 1 if len(distinct) <= 1 << 8 else 2 if len(distinct) <= 1 << 16 else 4
            numbers = self.distinct[name].values()
            used = np.fromiter(numbers, dtype=np.int64, count=len(distinct))
            rows = np.concatenate(self.numbers[name]) if self.numbers[name] else _NONE
            dense = np.searchsorted(used, rows)  # a value's code: its place among them
            codes[name] = (width, _compress(dense.astype(f"<u{width}").tobytes()))
        return values, codes


def _held_values(
    values: Sequence[tuple[Any, ...]], fields: tuple[str, ...]
) -> tuple[tuple[str, ...], list[Any]]:
    """``_held_keys`` of rows given as value tuples (of ``ROW_FIELDS``)."""
    held = tuple(f for f in fields if f in _AT)
    if not held:
        return held, [()] * len(values)
    return held, list(map(operator.itemgetter(*(_AT[f] for f in held)), values))


def _held_keys(
    rows: Sequence[CaseRow], fields: tuple[str, ...], classes: set[type[CaseRow]]
) -> tuple[tuple[str, ...], list[Any]]:
    """The fields of ``fields`` the rows' classes have and each row's value of them (a
    tuple for several); a field only some classes have is read as None where missing."""
    held = tuple(f for f in fields if all(f in c.model_fields for c in classes))
    if any(f in c.model_fields for c in classes for f in fields if f not in held):
        dicts = [row.__dict__ for row in rows]
        getters = (map(operator.methodcaller("get", name), dicts) for name in fields)
        return fields, list(zip(*getters, strict=True))
    if not held:
        return held, [()] * len(rows)
    return held, list(map(operator.attrgetter(*held), rows))


_Columns = dict[str, tuple[list[Any], _Codes]]
"""Each index column of a chunk of rows: its distinct values in order of first
appearance (a column of several fields: tuples of them, None for a field the rows lack)
and each row's index into them."""


def _chunk_columns(chunk: Sequence[CaseRow], values: Sequence[tuple[Any, ...]] | None) -> _Columns:
    """The ``INDEX_COLUMNS`` of one chunk of rows (read from ``values``, their value
    tuples, when given), in C-level loops but for the making of a distinct value of a
    column of several fields that the rows do not all hold."""
    classes: set[type[CaseRow]] = set(map(type, chunk)) if values is None else set()
    columns: _Columns = {}
    for name, fields in INDEX_COLUMNS.items():
        if len(fields) == 1:
            distinct, codes = _coded(_column(chunk, values, fields[0]))
        else:
            held, keys = (
                _held_keys(chunk, fields, classes)
                if values is None
                else _held_values(values, fields)
            )
            distinct, codes = _coded(keys)
            if held != fields:
                distinct = list(map(_widened(held, fields), distinct))
        columns[name] = (distinct, codes)
    return columns


def _coded(keys: list[Any]) -> tuple[list[Any], _Codes]:
    """The distinct ``keys`` in order of first appearance, and each key's place among
    them."""
    local: dict[Any, int] = {}
    # each key offered its own place, kept by the first of its kind: places with gaps,
    # growing in order of first appearance
    offered = np.fromiter(
        map(local.setdefault, keys, itertools.count()), dtype=np.int64, count=len(keys)
    )
    used = np.fromiter(local.values(), dtype=np.int64, count=len(local))
    return list(local), np.searchsorted(used, offered).astype(np.uint32)


def _widened(held: tuple[str, ...], fields: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """What makes a value of the fields ``held`` (a tuple of them, or the one) a tuple of
    ``fields``, None for each field not held."""
    if len(held) == 1:
        at = fields.index(held[0])
        before, after = (None,) * at, (None,) * (len(fields) - at - 1)
        return lambda key: (*before, key, *after)
    if fields[len(fields) - len(held) :] == held:  # the fields not held come first
        return functools.partial(operator.add, (None,) * (len(fields) - len(held)))

    def widened(key: Any) -> tuple[Any, ...]:
        given = dict(zip(held, key, strict=True))
        return tuple(given.get(field) for field in fields)

    return widened


def packed_index(
    rows: Sequence[CaseRow],
) -> tuple[dict[str, list[Any]], dict[str, tuple[int, str]]]:
    """The ``INDEX_COLUMNS`` of ``rows``: each column's distinct values in order of first
    appearance (a column of several fields: tuples of them), and its codes (the index of
    each row's value) as (bytes per code, little-endian unsigned integers compressed); no
    codes for a column whose every value is distinct (the codes would be 0, 1, 2, …)."""
    index = _IndexColumns()
    for start in range(0, len(rows), SEARCH_PART_ROWS):
        index.add(rows[start : start + SEARCH_PART_ROWS])
    return index.finish()


@functools.cache
def rows_adapter() -> TypeAdapter[list[SerializeAsAny[CaseRow]]]:
    return TypeAdapter(list[SerializeAsAny[CaseRow]])


def _block(name: str, text: str) -> str:
    # base64 text: nothing in it can end the element
    return f'<script type="application/octet-stream" id="assay-{name}">{text}</script>\n'


def packed_blocks(report: Report) -> Iterator[str]:
    """The packed rows of ``report`` as the page's data blocks, one at a time, from one
    pass over the rows: the parts of full rows ``rows-<k>``, then the parts of searched
    text ``search-<k>``, ``index`` (each index column's distinct values, those of a column
    of several fields as arrays of them, named by its ``fields``) and
    ``codes-<column>``. Base64 in elements of their own: the page reads one when it needs
    it, so its script never holds the whole page's data.

    The rows are read once, in order, a chunk at a time (rows read from a store are
    never all in memory); rows held as value tuples are written by orjson (see
    ``_part_json``)."""
    if SEARCH_PART_ROWS % PACKED_PART_ROWS:
        raise ValueError("SEARCH_PART_ROWS must be a multiple of PACKED_PART_ROWS")
    index = _IndexColumns()
    searched: list[str] = []
    part = 0
    for columns, search, parts in _packed_parts(report.cases):
        index.merge(columns)
        searched.append(search)
        for text in parts:
            yield _block(f"rows-{part}", text)
            part += 1
    for k, compressed in enumerate(searched):
        yield _block(f"search-{k}", compressed)
    values, codes = index.finish()
    widths = {name: width for name, (width, _) in codes.items()}
    fields = {name: f for name, f in INDEX_COLUMNS.items() if len(f) > 1}
    index_json = orjson.dumps({"values": values, "fields": fields, "widths": widths})
    yield _block("index", _compress(index_json))
    for name, (_, text) in codes.items():
        yield _block(f"codes-{name}", text)


_Packed = tuple[_Columns, str, list[str]]
"""A chunk of ``SEARCH_PART_ROWS`` rows packed: its index columns, its part of searched
text and its parts of full rows, compressed."""


def _packed_parts(rows: Sequence[CaseRow]) -> Iterator[_Packed]:
    """Each ``SEARCH_PART_ROWS`` rows packed, in order, the rows read once: from their
    value tuples when held as values (``CaseRows``; rows read from a store, in two
    processes when many), without making the rows."""
    made = rendered_chunks(rows, SEARCH_PART_ROWS, _packed_values)
    if made is not None:
        return made
    return (_packed(chunk, None) for chunk in chunked(rows, SEARCH_PART_ROWS))


def _packed_values(values: list[tuple[Any, ...]]) -> _Packed:
    return _packed([], values)


def _packed(chunk: list[CaseRow], values: list[tuple[Any, ...]] | None) -> _Packed:
    """A chunk of rows (given as ``values``, their value tuples, when held so) packed;
    rows held as value tuples are written by orjson (see ``_part_json``)."""
    count = len(values) if values is not None else len(chunk)
    parts = []
    for at in range(0, count, PACKED_PART_ROWS):
        end = at + PACKED_PART_ROWS
        held = values[at:end] if values is not None else list(_row_values(chunk[at:end]))
        parts.append(_compress(_part_json(held)))
    return _chunk_columns(chunk, values), _compress(_search_json(chunk, values)), parts


_ORJSON = (
    orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
"""Anything but JSON's own types makes orjson raise, so pydantic dumps it instead."""


def _part_json(values: Sequence[tuple[Any, ...]]) -> bytes:
    """A part of full rows, given as value tuples, as a JSON array of arrays: each row's
    values in ``ROW_FIELDS`` order, each the value pydantic writes for it in JSON (the
    page names them with the packed data's ``fields``). Written by orjson, which gives
    pydantic's values for a row's usual types at a fraction of its cost
    (tests/property/test_html_rows.py); a part holding a value orjson does not write (it
    raises: a judge's detail, a date) is written from pydantic's JSON of its rows."""
    try:
        return orjson.dumps(values, option=_ORJSON)
    except (TypeError, orjson.JSONEncodeError):
        rows = json.loads(rows_adapter().dump_json([row_of(v) for v in values]))
        # A block that does not apply is left out of a row's JSON: null in its place here.
        arrays = [[row.get(name) for name in ROW_FIELDS] for row in rows]
        return json.dumps(arrays, ensure_ascii=False, separators=(",", ":")).encode()


def packed_meta(rows: int) -> dict[str, Any]:
    """What the page's script needs to read ``rows`` packed rows (``packed_blocks``)."""
    return {
        "rows": rows,
        "part_rows": PACKED_PART_ROWS,
        "fields": ROW_FIELDS,
        "parts": -(-rows // PACKED_PART_ROWS),
        "search_rows": SEARCH_PART_ROWS,
        "search_parts": -(-rows // SEARCH_PART_ROWS),
    }
