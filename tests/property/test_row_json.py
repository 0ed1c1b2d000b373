"""Case rows written by orjson (``plain_rows_json``) are byte for byte what pydantic
writes of the same rows, and rows it cannot write exactly are left to pydantic."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from assay.report import CaseRow
from assay.report._rows import ROW_FIELDS, CaseRows, plain_rows_json

_ADAPTER = TypeAdapter(list[CaseRow])
_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
_INT = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_OPTIONAL_TEXT = st.none() | _TEXT
_OPTIONAL_INT = st.none() | _INT

_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "id": _TEXT,
    "slice": _TEXT,
    "trial": _INT,
    "synthetic": st.booleans(),
    "question": _TEXT,
    "expected_behavior": _TEXT,
    "status": _TEXT,
    "reason": _TEXT,
    "grader": _TEXT,
    "input_tokens": _OPTIONAL_INT,
    "output_tokens": _OPTIONAL_INT,
    "latency_ms": st.none(),
    "transcript": st.none(),
    "judge": st.none(),
}
rows = st.tuples(*(_FIELDS.get(name, _OPTIONAL_TEXT) for name in ROW_FIELDS))


def _pydantic(values: list[tuple[Any, ...]]) -> bytes:
    made = [CaseRow.model_construct(**dict(zip(ROW_FIELDS, v, strict=True))) for v in values]
    return _ADAPTER.dump_json(made, indent=2)


@settings(max_examples=300, deadline=None)
@given(st.lists(rows, min_size=1, max_size=4))
def test_plain_rows_are_written_as_pydantic_writes_them(values: list[tuple[Any, ...]]) -> None:
    assert plain_rows_json(values) == _pydantic(values)


@settings(max_examples=100, deadline=None)
@given(st.lists(rows, min_size=1, max_size=3), st.data())
def test_rows_with_other_values_are_left_to_pydantic(
    values: list[tuple[Any, ...]], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(values) - 1))
    latency = ROW_FIELDS.index("latency_ms")
    changed = list(values[i])
    changed[latency] = data.draw(st.floats(allow_nan=False, allow_infinity=False))
    values[i] = tuple(changed)
    assert plain_rows_json(values) is None


def test_values_orjson_cannot_write_exactly_are_left_to_pydantic() -> None:
    base = dict.fromkeys(ROW_FIELDS)
    base |= {"id": "A", "slice": "s", "trial": 1, "synthetic": False, "question": "q"}
    base |= {"expected_behavior": "answer", "status": "passed", "reason": "r", "grader": "g"}
    for field, value in [
        ("input_tokens", 2**64),  # past 64 bits
        ("text", "lone \ud800 surrogate"),
        ("transcript", {"messages": []}),
    ]:
        row = tuple((base | {field: value}).values())
        assert plain_rows_json([row]) is None, field
    assert plain_rows_json([tuple(base.values())]) == _pydantic([tuple(base.values())])


def test_chunks_of_rows_with_and_without_plain_values_are_written_as_pydantic_would() -> None:
    base = dict.fromkeys(ROW_FIELDS)
    base |= {"id": "A", "slice": "s", "trial": 1, "synthetic": False, "question": "é\x01\u2028"}
    base |= {"expected_behavior": "answer", "status": "passed", "reason": "r", "grader": "g"}
    plain = tuple(base.values())
    timed = tuple((base | {"id": "B", "latency_ms": 12.5}).values())
    values = [plain] * 2_500 + [timed] + [plain] * 10
    chunks = [plain_rows_json(values[:2_000]), plain_rows_json(values[2_000:4_000])]
    assert chunks[0] == _pydantic(values[:2_000])
    assert chunks[1] is None
    compact = CaseRows(values)
    assert compact.json_lines(0, 2_000) == chunks[0]
    assert compact.json_lines(2_000, 4_000) is None
