"""A packed page's parts of full rows held as value tuples are written by orjson, byte
for byte as pydantic writes the same rows as models (compact JSON): any text, number,
transcript or judge detail; a row holding a value orjson would write otherwise is written
by pydantic."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.property.test_json_rows import _rows

from assay.report._model import CaseRow
from assay.report._rows import ROW_FIELDS, row_of
from assay.report.render.html import _part_json, _rows_adapter


@settings(max_examples=300, deadline=None)
@given(st.lists(_rows(), min_size=1, max_size=5))
def test_parts_written_by_orjson_equal_pydantic(values: list[tuple[Any, ...]]) -> None:
    rows = [CaseRow.model_validate(dict(zip(ROW_FIELDS, v, strict=True))) for v in values]
    expected = _rows_adapter().dump_json(rows)
    assert _part_json(values) == expected


def test_a_value_orjson_would_write_otherwise_is_written_by_pydantic() -> None:
    base = dict.fromkeys(ROW_FIELDS)
    base |= {"id": "c", "slice": "s", "trial": 1, "synthetic": False, "question": "q"}
    base |= {"expected_behavior": "answer", "status": "passed", "reason": "r", "grader": "g"}
    for odd in ({"input_tokens": 2**70}, {"transcript": {"at": datetime(2026, 1, 1, tzinfo=UTC)}}):
        values = tuple((base | odd)[name] for name in ROW_FIELDS)
        assert _part_json([values]) == _rows_adapter().dump_json([row_of(values)])
