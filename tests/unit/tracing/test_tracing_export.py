"""Spans into the run store: tagged with case and trial, batched, errors kept."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from opentelemetry import trace

from assay.outcomes import Span
from assay.tracing import inject_traceparent, start_tracing, traceparent


class Sink:
    def __init__(self) -> None:
        self.batches: list[list[Span]] = []

    def add_spans(self, run_id: str, spans: Sequence[Span]) -> None:
        assert run_id == "run-1"
        self.batches.append(list(spans))

    @property
    def spans(self) -> list[Span]:
        return [s for batch in self.batches for s in batch]


def request(tracer: trace.Tracer, case_id: str, trial: int = 1) -> None:
    attributes = {"assay.case.id": case_id, "assay.trial": trial}
    with tracer.start_as_current_span("assay.request", attributes=attributes):
        with tracer.start_as_current_span("retrieval") as span:
            span.set_attribute("assay.retrieval.selected_ids", ["a", "b"])
        with tracer.start_as_current_span("chat"):
            pass


def test_child_spans_carry_the_case_of_their_request() -> None:
    sink = Sink()
    session = start_tracing(sink, "run-1")
    request(session.tracer, "E1")
    request(session.tracer, "E2", trial=2)
    session.close()
    by_case = {(s.name, s.case_id, s.trial) for s in sink.spans}
    assert ("retrieval", "E1", 1) in by_case
    assert ("chat", "E2", 2) in by_case
    retrieval = next(s for s in sink.spans if s.name == "retrieval" and s.case_id == "E1")
    root = next(s for s in sink.spans if s.name == "assay.request" and s.case_id == "E1")
    assert retrieval.parent_id == root.span_id and retrieval.trace_id == root.trace_id
    assert retrieval.attributes["assay.retrieval.selected_ids"] == ["a", "b"]
    assert len(retrieval.trace_id) == 32 and len(retrieval.span_id) == 16
    assert root.start_ns <= retrieval.start_ns <= retrieval.end_ns <= root.end_ns


def test_spans_are_written_in_batches_and_on_flush() -> None:
    sink = Sink()
    session = start_tracing(sink, "run-1", batch_size=4)
    for i in range(3):
        request(session.tracer, f"C{i}")
    assert [len(b) for b in sink.batches] == [4, 4]
    session.flush()
    assert [len(b) for b in sink.batches] == [4, 4, 1]
    session.close()
    assert len(sink.spans) == 9


def test_finished_requests_are_forgotten() -> None:
    sink = Sink()
    session = start_tracing(sink, "run-1", batch_size=1)
    request(session.tracer, "C1")
    assert session.open_traces() == 0
    with session.tracer.start_as_current_span("assay.request", attributes={"assay.case.id": "C2"}):
        assert session.open_traces() == 1
    assert session.open_traces() == 0
    session.close()


def test_an_exception_becomes_an_error_span_with_its_message() -> None:
    sink = Sink()
    session = start_tracing(sink, "run-1")
    with (
        pytest.raises(LookupError),
        session.tracer.start_as_current_span("assay.request", attributes={"assay.case.id": "E5"}),
        session.tracer.start_as_current_span("fetch_section"),
    ):
        raise LookupError("no such section")
    session.close()
    fetch = next(s for s in sink.spans if s.name == "fetch_section")
    assert fetch.status == "error"
    assert "no such section" in (fetch.status_message or "")
    assert fetch.attributes["exception.type"] == "LookupError"
    assert fetch.case_id == "E5" and fetch.trial is None


def test_the_global_tracer_provider_is_left_alone() -> None:
    before = trace.get_tracer_provider()
    session = start_tracing(Sink(), "run-1")
    session.close()
    assert trace.get_tracer_provider() is before


def test_traceparent_names_the_current_span() -> None:
    session = start_tracing(Sink(), "run-1")
    assert traceparent() is None
    with session.tracer.start_as_current_span("assay.request") as span:
        value = traceparent()
        context = span.get_span_context()
    session.close()
    flags = f"{context.trace_flags:02x}"
    assert value == f"00-{context.trace_id:032x}-{context.span_id:016x}-{flags}"
    assert int(flags, 16) & 1  # sampled
    assert inject_traceparent({"accept": "json"}, value) == {"accept": "json", "traceparent": value}
    assert inject_traceparent({}, None) == {}


def test_exported_spans_are_what_validation_would_make_of_them() -> None:
    sink = Sink()
    session = start_tracing(sink, "run-1")
    request(session.tracer, "E1", trial=3)
    with session.tracer.start_as_current_span("failing") as span:
        span.record_exception(ValueError("boom"))
        span.set_status(trace.Status(trace.StatusCode.ERROR, "boom"))
    session.close()
    assert len(sink.spans) == 4
    for exported in sink.spans:
        dumped = exported.model_dump()
        assert Span.model_validate(dumped) == exported
        assert exported.model_fields_set == set(Span.model_fields)
