"""The store tracer keeps a span's attributes as the OpenTelemetry SDK does, whatever is
set: new and repeated keys, values to clean, bad keys, and count and length limits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.outcomes import Span
from assay.tracing._session import TracingSession, sdk_tracing, start_tracing


class Sink:
    def __init__(self) -> None:
        self.spans: list[Span] = []

    def add_spans(self, run_id: str, spans: Sequence[Span]) -> None:
        self.spans.extend(spans)


KEYS = st.sampled_from(["a", "b", "c", "gen_ai.request.model", "assay.case.id", "d", "e"])
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.text(max_size=3), max_size=3),
    st.tuples(st.integers(0, 3), st.integers(0, 3)),
    st.lists(st.integers(0, 3), max_size=2),
)
# One call on the span: set_attribute(key, value) or set_attributes(mapping), the mapping
# sometimes with a key that is not a non-empty string.
CALLS = st.lists(
    st.one_of(
        st.tuples(st.just("one"), st.one_of(KEYS, st.just("")), VALUES),
        st.tuples(
            st.just("many"),
            st.dictionaries(st.one_of(KEYS, st.just(""), st.just(7)), VALUES, max_size=5),
            st.none(),
        ),
    ),
    max_size=8,
)


def _attributes(start: Any, calls: list[tuple[str, Any, Any]]) -> list[tuple[str, Any]]:
    sink = Sink()
    session: TracingSession = start(sink, "run-1")
    with session.tracer.start_as_current_span("s", attributes={"a": 1}) as span:
        for kind, first, second in calls:
            if kind == "one":
                span.set_attribute(first, second)
            else:
                span.set_attributes(first)
    session.close()
    (stored,) = sink.spans
    return list(stored.attributes.items())


@pytest.mark.parametrize("count_limit", [None, "2", "4"])
@pytest.mark.parametrize("length_limit", [None, "3"])
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls=CALLS)
def test_store_tracer_attributes_equal_the_sdks(
    monkeypatch: pytest.MonkeyPatch,
    count_limit: str | None,
    length_limit: str | None,
    calls: list[tuple[str, Any, Any]],
) -> None:
    for name, value in (
        ("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", count_limit),
        ("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", length_limit),
    ):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert _attributes(start_tracing, calls) == _attributes(sdk_tracing, calls)
