"""The record the runner makes for a called case-trial is the record validation makes:
equal, the same given fields, the same JSON; anything unusual is refused as before."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from assay.outcomes import Abstain, Answer, Error, Record, Usage
from assay.runner._record import called_record
from assay.targets._replies import usage_from


class Text(str):
    """A string subclass: not the usual shape."""


JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
OUTCOMES = st.one_of(
    st.builds(Answer, fact=st.text(), text=st.none() | st.text()),
    st.builds(Answer, text=st.text()),
    st.builds(Abstain, reason=st.none() | st.text()),
    st.builds(Error, error_class=st.none() | st.text(), message=st.text()),
    st.sampled_from([{"kind": "answer", "text": "t"}, {"kind": "other"}, "answer", None]),
)
USAGE = st.one_of(
    st.none(),
    st.builds(
        Usage,
        input_tokens=st.none() | st.integers(min_value=0),
        output_tokens=st.none() | st.integers(min_value=0),
    ),
    st.sampled_from([{"input_tokens": 3}, {"input_tokens": "x"}]),
)
ODD: st.SearchStrategy[Any] = st.sampled_from([True, 0, -1, 1.0, "2", None, Text("c")])
EXTRA = st.one_of(
    st.dictionaries(st.text(), JSON, max_size=4),
    st.dictionaries(st.sampled_from([1, Text("k"), "k"]), JSON, max_size=2),
    st.sampled_from([None, [], [("k", 1)]]),
)


def _made(make: Any) -> Record | type[ValidationError]:
    try:
        return make()
    except ValidationError:
        return ValidationError


@settings(max_examples=600, deadline=None)
@given(
    case_id=st.text(max_size=4) | ODD,
    trial=st.integers(min_value=-1, max_value=5) | ODD,
    outcome=OUTCOMES,
    attempts=st.integers(min_value=-1, max_value=5) | ODD,
    latency=st.none() | st.floats() | ODD,
    usage=USAGE,
    trace_id=st.none() | st.text(max_size=4) | ODD,
    extra=EXTRA,
)
def test_a_called_record_is_the_validated_record(
    case_id: Any,
    trial: Any,
    outcome: Any,
    attempts: Any,
    latency: Any,
    usage: Any,
    trace_id: Any,
    extra: Any,
) -> None:
    fields = {
        "case_id": case_id,
        "trial": trial,
        "outcome": outcome,
        "attempts": attempts,
        "latency_ms": latency,
        "usage": usage,
        "trace_id": trace_id,
        "extra": extra,
    }
    fast = _made(lambda: called_record(**fields))
    slow = _made(lambda: Record(**fields))
    if slow is ValidationError or fast is ValidationError:
        assert fast is slow
        return
    assert isinstance(fast, Record) and isinstance(slow, Record)
    assert type(fast) is Record
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump() == slow.model_dump()
    assert fast.model_dump_json() == slow.model_dump_json()
    assert fast.extra is not extra  # a copy, as validation makes


COUNTS: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.integers(), st.sampled_from([True, False, 2.0, "3", 2**70, -1])
)


@settings(max_examples=300, deadline=None)
@given(input_tokens=COUNTS, output_tokens=COUNTS)
def test_a_replys_usage_is_the_validated_usage(input_tokens: Any, output_tokens: Any) -> None:
    made = usage_from(input_tokens, output_tokens)
    i = input_tokens if isinstance(input_tokens, int) else None
    o = output_tokens if isinstance(output_tokens, int) else None
    if i is None and o is None:
        assert made is None
        return
    expected = Usage(input_tokens=i, output_tokens=o)
    assert type(made) is Usage
    assert made == expected
    assert made.model_fields_set == expected.model_fields_set
    assert made.model_dump_json() == expected.model_dump_json()
