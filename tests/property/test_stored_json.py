"""The store's JSON text is the text ``json`` writes, for any value: the same string (each
lone surrogate escaped, so that a database can hold it), or the same error."""

from __future__ import annotations

import enum
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.store._dump import dump

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Mode(enum.StrEnum):
    FAST = "fast"


def _expected(value: Any) -> tuple[str, Any]:
    try:
        text = _JSON.encode(value)
        return "text", re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m[0]):04x}", text)
    except Exception as err:  # the error itself is compared
        return "error", (type(err), str(err))


def _got(value: Any) -> tuple[str, Any]:
    try:
        return "text", dump(value)
    except Exception as err:  # the error itself is compared
        return "error", (type(err), str(err))


_FLOATS = st.one_of(
    st.floats(),  # every float, NaN and infinities included
    st.floats(min_value=-1e-3, max_value=1e-3),
    st.sampled_from([0.0, -0.0, 1e-4, 9.99e-5, 1e-5, 1e16, 1e-7, 5e-324, 1e308]),
)
_INTS = st.one_of(st.integers(), st.integers(min_value=-(2**70), max_value=2**70))
_KEYS = st.one_of(st.text(), st.integers(), st.booleans(), st.none(), _FLOATS)
_LEAVES = st.one_of(
    st.text(),  # lone surrogates and control characters included
    _INTS,
    _FLOATS,
    st.booleans(),
    st.none(),
    st.sampled_from([Colour.RED, Level.HIGH, Mode.FAST, b"bytes", object]),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(st.text(max_size=12), inner, max_size=5),
        st.dictionaries(_KEYS, inner, max_size=3),
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_dump_writes_what_json_writes(value: Any) -> None:
    assert _got(value) == _expected(value)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=30), st.one_of(st.text(), _INTS, _FLOATS), max_size=12))
def test_span_attributes_are_written_as_json_writes_them(value: dict[str, Any]) -> None:
    assert _got(value) == _expected(value)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"deep": [value]}
    return value


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1e-05, "b": 1e16, "c": -1e-300, "d": 0.0001},
        [float("nan"), float("inf"), -float("inf")],
        _nested(100),
        _nested(300),
        "\ud800 lone surrogate",
        {"t": (1, "two", 3.5), "n": None, "é": "ünïcode \u2028 \x7f \x00"},
        2**64,
        -(2**63) - 1,
        {1: "int key"},
        Mode.FAST,
        {"k": Level.HIGH},
    ],
)
def test_edge_values_match(value: Any) -> None:
    assert _got(value) == _expected(value)


def test_a_lone_surrogate_is_written_as_its_escape_and_reads_back() -> None:
    text = dump({"answer": "a\ud800b", "k\udfff": ["\udbff"]})
    assert text == '{"answer":"a\\ud800b","k\\udfff":["\\udbff"]}'
    text.encode("utf-8")  # a database can hold it
    assert json.loads(text) == {"answer": "a\ud800b", "k\udfff": ["\udbff"]}


def test_a_circular_value_fails_as_json_fails() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert _got(loop) == _expected(loop)
    assert _got(loop)[0] == "error"


class _Refuses:
    def encode(self, value: Any) -> str:
        raise AssertionError("the quick path was not taken")


def test_typical_rows_take_the_quick_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A span's attributes and a call's transcript are written by orjson."""
    monkeypatch.setattr("assay.store._dump._JSON", _Refuses())
    attributes = {"gen_ai.request.temperature": 0.0, "reasons": ("stop",), "n": 42}
    assert dump(attributes) == '{"gen_ai.request.temperature":0.0,"reasons":["stop"],"n":42}'
    transcript = {"transcript": {"messages": [{"role": "user", "content": "é\n"}]}}
    assert dump(transcript) == '{"transcript":{"messages":[{"role":"user","content":"é\\n"}]}}'
    with pytest.raises(AssertionError, match="quick path"):
        dump({"small": 1e-5})
