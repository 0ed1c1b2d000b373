"""``--otlp``: spans also go to an OTLP/HTTP collector (a loopback receiver here)."""

from __future__ import annotations

from collections.abc import Sequence

from tests.otlp_receiver import Receiver

from assay.outcomes import Span
from assay.tracing import otlp_traces_url, start_tracing


class Sink:
    def __init__(self) -> None:
        self.spans: list[Span] = []

    def add_spans(self, run_id: str, spans: Sequence[Span]) -> None:
        self.spans.extend(spans)


def test_spans_reach_the_collector_and_the_store(otlp_receiver: Receiver) -> None:
    receiver = otlp_receiver
    sink = Sink()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    session = start_tracing(sink, "run-otlp", otlp_endpoint=endpoint)
    tracer = session.tracer
    with (
        tracer.start_as_current_span("assay.request", attributes={"assay.case.id": "E2"}),
        tracer.start_as_current_span("chat policy-reader-1") as span,
    ):
        span.set_attribute("gen_ai.request.model", "policy-reader-1")
    session.close()
    assert {s.name for s in sink.spans} == {"assay.request", "chat policy-reader-1"}
    assert receiver.requests, "the collector received nothing"
    paths = {path for path, _ in receiver.requests}
    assert paths == {"/v1/traces"}
    received = [
        (resource_spans.resource, span)
        for _, message in receiver.requests
        for resource_spans in message.resource_spans
        for scope in resource_spans.scope_spans
        for span in scope.spans
    ]
    assert {span.name for _, span in received} == {"assay.request", "chat policy-reader-1"}
    resource = {a.key: a.value.string_value for a in received[0][0].attributes}
    assert resource["assay.run.id"] == "run-otlp"
    assert resource["service.name"] == "assay"
    chat = next(span for _, span in received if span.name.startswith("chat"))
    attributes = {a.key: a.value.string_value for a in chat.attributes}
    assert attributes["gen_ai.request.model"] == "policy-reader-1"


def test_the_traces_path_is_added_once() -> None:
    assert otlp_traces_url("http://h:4318/") == "http://h:4318/v1/traces"
    assert otlp_traces_url("http://h:4318/v1/traces") == "http://h:4318/v1/traces"
    assert otlp_traces_url("http://h:4318/v1/metrics") == "http://h:4318/v1/traces"
