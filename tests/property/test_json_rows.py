"""Case rows held as value tuples are written as JSON by orjson, byte for byte as pydantic
writes the same rows as models: any text (quotes, control characters, non-ASCII), any
float or integer, transcripts of nested JSON values, judge details, an agent's counts and
trajectory (arguments and results of nested JSON values); a row holding a value
orjson would write otherwise (an integer past 64 bits, a date) is written by pydantic."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.outcomes import ModelStep, ToolCall, ToolStep, Trajectory
from assay.render.json import _indented, _rows_adapter, json_row_pieces
from assay.report._agent import AgentCounts
from assay.report._model import CaseRow, JudgeDetail
from assay.report._rows import ROW_FIELDS, CaseRows

_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


_CALLS = st.builds(
    ToolCall,
    id=st.none() | _TEXT,
    name=_TEXT,
    arguments=st.none() | st.dictionaries(_TEXT, _JSON, max_size=3),
    raw_arguments=st.none() | _TEXT,
)
_STEPS = st.builds(
    ModelStep, text=st.none() | _TEXT, tool_calls=st.lists(_CALLS, max_size=2).map(tuple)
) | st.builds(
    ToolStep,
    call=_CALLS,
    status=st.sampled_from(["ok", "refused", "error", "malformed", "unknown_tool"]),
    result=_JSON,
    error=st.none() | _TEXT,
    latency_ms=st.none() | st.floats(allow_nan=False, allow_infinity=False),
)
_TRAJECTORIES = st.builds(
    Trajectory,
    steps=st.lists(_STEPS, max_size=3).map(tuple),
    ended=st.sampled_from(["answered", "step_limit", "model_error", "timeout"]),
    state_before=st.none() | st.dictionaries(_TEXT, _JSON, max_size=3),
    state_after=st.none() | st.dictionaries(_TEXT, _JSON, max_size=3),
)


@st.composite
def _rows(draw: Any) -> tuple[Any, ...]:
    values = {
        "id": draw(_TEXT.filter(bool)),
        "slice": draw(_TEXT.filter(bool)),
        "trial": draw(st.integers(1, 5)),
        "synthetic": draw(st.booleans()),
        "question": draw(_TEXT),
        "expected_behavior": draw(st.sampled_from(["answer", "abstain"])),
        "expected_fact": draw(st.none() | _TEXT),
        "rationale": draw(st.none() | _TEXT),
        "outcome": draw(st.none() | st.sampled_from(["answer", "abstain", "error"])),
        "fact": draw(st.none() | _TEXT),
        "text": draw(st.none() | _TEXT),
        "abstain_reason": draw(st.none() | _TEXT),
        "status": draw(st.sampled_from(["passed", "failed", "error", "missing", "ungraded"])),
        "reason": draw(_TEXT),
        "grader": draw(_TEXT),
        "case_hash": draw(st.none() | _TEXT),
        "source_revision": draw(st.none() | _TEXT),
        "raw": draw(st.none() | _TEXT),
        "input_tokens": draw(st.none() | st.integers(0, 2**62)),
        "output_tokens": draw(st.none() | st.integers(0, 2**62)),
        "latency_ms": draw(st.none() | st.floats(allow_nan=False, allow_infinity=False)),
        "transcript": draw(st.none() | st.dictionaries(_TEXT, _JSON, max_size=4)),
        "traceback": draw(st.none() | _TEXT),
        "judge": draw(
            st.none()
            | st.builds(
                JudgeDetail,
                score=st.none() | st.integers(0, 2),
                labels=st.lists(_TEXT, max_size=3),
            )
        ),
        "cached_from": draw(st.none() | _TEXT),
        "agent": draw(
            st.none()
            | st.builds(
                AgentCounts,
                steps=st.integers(0, 50),
                tool_calls=st.integers(0, 50),
                tool_errors=st.integers(0, 50),
                malformed_calls=st.integers(0, 50),
                ended=st.sampled_from(["answered", "step_limit"]),
            )
        ),
        "trajectory": draw(st.none() | _TRAJECTORIES),
    }
    return tuple(values[name] for name in ROW_FIELDS)


@settings(max_examples=300, deadline=None)
@given(st.lists(_rows(), min_size=1, max_size=5))
def test_rows_written_by_orjson_equal_pydantic(values: list[tuple[Any, ...]]) -> None:
    rows = [CaseRow.model_validate(dict(zip(ROW_FIELDS, v, strict=True))) for v in values]
    expected = _indented(_rows_adapter().dump_json(rows, indent=2).decode("utf-8"))
    assert "".join(json_row_pieces(CaseRows(values))) == expected
    assert "".join(json_row_pieces(rows)) == expected


def test_a_value_orjson_would_write_otherwise_is_written_by_pydantic() -> None:
    base = dict.fromkeys(ROW_FIELDS)
    base |= {"id": "c", "slice": "s", "trial": 1, "synthetic": False, "question": "q"}
    base |= {"expected_behavior": "answer", "status": "passed", "reason": "r", "grader": "g"}
    for transcript in ({"at": datetime(2026, 1, 2, tzinfo=UTC)}, {"n": 2**80}):
        row = CaseRow.model_validate({**base, "transcript": transcript})
        values = tuple(row.__dict__[name] for name in ROW_FIELDS)
        expected = _indented(_rows_adapter().dump_json([row], indent=2).decode("utf-8"))
        assert "".join(json_row_pieces(CaseRows([values]))) == expected
