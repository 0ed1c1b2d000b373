"""A packed page's parts of full rows, held as value tuples, are written by orjson as
arrays of each row's values, each value the one pydantic writes for the row as a model:
any text, number, transcript or judge detail; a part holding a value orjson would write
otherwise is written from pydantic's JSON."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.property.test_json_rows import _rows

from assay.render.packed import _part_json, rows_adapter
from assay.report._model import CaseRow
from assay.report._rows import ROW_FIELDS


def _pydantic_values(values: list[tuple[Any, ...]]) -> list[list[Any]]:
    """Each row's values in ``ROW_FIELDS`` order, as pydantic writes the rows in JSON (a
    block that does not apply, left out, as null)."""
    rows = [CaseRow.model_validate(dict(zip(ROW_FIELDS, v, strict=True))) for v in values]
    dumped = json.loads(rows_adapter().dump_json(rows))
    return [[row.get(name) for name in ROW_FIELDS] for row in dumped]


def _same(a: Any, b: Any) -> bool:
    """Equal JSON values, a float by its bits (1.0 is not 1; -0.0 is not 0.0)."""
    if isinstance(a, float) or isinstance(b, float):
        return type(a) is type(b) and math.copysign(1, a) == math.copysign(1, b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(st.lists(_rows(), min_size=1, max_size=5))
def test_parts_written_by_orjson_hold_pydantics_values(values: list[tuple[Any, ...]]) -> None:
    assert _same(json.loads(_part_json(values)), _pydantic_values(values))


def test_a_value_orjson_would_write_otherwise_is_written_from_pydantics_json() -> None:
    base = dict.fromkeys(ROW_FIELDS)
    base |= {"id": "c", "slice": "s", "trial": 1, "synthetic": False, "question": "q"}
    base |= {"expected_behavior": "answer", "status": "passed", "reason": "r", "grader": "g"}
    for odd in ({"input_tokens": 2**70}, {"transcript": {"at": datetime(2026, 1, 1, tzinfo=UTC)}}):
        values = tuple((base | odd)[name] for name in ROW_FIELDS)
        plain = tuple(base[name] for name in ROW_FIELDS)
        written = json.loads(_part_json([plain, values]))
        assert _same(written, _pydantic_values([plain, values]))
        field = ROW_FIELDS.index(next(iter(odd)))
        assert written[1][field] in (2**70, {"at": "2026-01-01T00:00:00Z"})
