"""A packed page's index columns merged a chunk at a time (``_IndexColumns``): each
column's distinct values in order of first appearance, and each row's code its value's
place among them, whatever the chunks and however values repeat across them."""

from __future__ import annotations

import base64
import gzip
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.render.packed import INDEX_COLUMNS, _chunk_columns, _IndexColumns
from assay.report._rows import ROW_FIELDS

_AT = {name: at for at, name in enumerate(ROW_FIELDS)}
_FEW = st.sampled_from(["a", "b", "c", None])


@st.composite
def _values(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Rows' value tuples whose index fields are drawn from a few values (so they repeat
    within and across chunks); ids more varied."""
    count = draw(st.integers(1, 60))
    rows = []
    for _ in range(count):
        row: list[Any] = [None] * len(ROW_FIELDS)
        for fields in INDEX_COLUMNS.values():
            for field in fields:
                if field in _AT:  # a label is a field of some rows' models, never a value
                    row[_AT[field]] = draw(_FEW)
        row[_AT["id"]] = draw(st.sampled_from([f"c{i}" for i in range(40)]))
        row[_AT["trial"]] = draw(st.integers(1, 3))
        rows.append(tuple(row))
    return rows


def _decoded(values: list[Any], width: int, text: str) -> list[Any]:
    raw = gzip.decompress(base64.b64decode(text))
    codes = [int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width)]
    return [values[c] for c in codes]


@settings(max_examples=300, deadline=None)
@given(rows=_values(), size=st.integers(1, 25))
def test_merged_chunks_give_each_rows_value(rows: list[tuple[Any, ...]], size: int) -> None:
    index = _IndexColumns()
    for start in range(0, len(rows), size):
        index.merge(_chunk_columns([], rows[start : start + size]))
    values, codes = index.finish()
    for name, fields in INDEX_COLUMNS.items():
        wanted = [tuple(row[_AT[f]] if f in _AT else None for f in fields) for row in rows]
        assert [v if len(fields) > 1 else (v,) for v in values[name]] == list(
            dict.fromkeys(wanted)
        )  # distinct, in order of first appearance
        if name in codes:
            width, text = codes[name]
            got = _decoded(values[name], width, text)
            assert [v if len(fields) > 1 else (v,) for v in got] == wanted
        else:
            assert len(values[name]) == len(rows)  # every value distinct


def test_a_value_of_some_fields_is_widened_to_all_of_them() -> None:
    from assay.render.packed import _widened

    fields = ("a", "b", "c")
    assert _widened(("b",), fields)("x") == (None, "x", None)
    assert _widened(("b", "c"), fields)(("x", "y")) == (None, "x", "y")
    assert _widened(("a", "c"), fields)(("x", "y")) == ("x", None, "y")
    assert _widened((), fields)(()) == (None, None, None)
