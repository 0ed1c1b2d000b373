"""The OTLP/HTTP span receiver: protobuf and JSON exports, late spans, unknown traces."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="needs assay[otlp]")

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from assay.outcomes import Span
from assay.tracing._receiver import SpanReceiver

TRACE = "0af7651916cd43dd8448eb211c80319c"


class Links:
    """A store stand-in: the traces recorded so far, and the spans written per run."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[str, str, int]] = {}
        self.stored: dict[str, list[Span]] = {}

    def lookup(self, ids: Sequence[str]) -> dict[str, tuple[str, str, int]]:
        return {i: self.known[i] for i in ids if i in self.known}

    def sink(self, run_id: str, spans: Sequence[Span]) -> None:
        self.stored.setdefault(run_id, []).extend(spans)


def _post(url: str, body: bytes, content_type: str) -> int:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": content_type}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _json_export(trace_id: str, name: str) -> bytes:
    span = {
        "traceId": trace_id,
        "spanId": "b7ad6b7169203331",
        "parentSpanId": "00f067aa0ba902b7",
        "name": name,
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "3000",
        "status": {"code": 2, "message": "boom"},
        "attributes": [
            {"key": "assay.stage", "value": {"stringValue": "generation"}},
            {"key": "ids", "value": {"arrayValue": {"values": [{"stringValue": "a"}]}}},
            {"key": "n", "value": {"intValue": "3"}},
        ],
    }
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "app"}}]}
    data = {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [span]}]}]}
    return json.dumps(data).encode()


def test_a_json_export_is_attached_to_its_case_trial() -> None:
    links = Links()
    links.known[TRACE] = ("run-1", "E2", 3)
    with SpanReceiver(links.lookup, links.sink, port=0) as receiver:
        assert (
            _post(receiver.endpoint, _json_export(TRACE, "generation"), "application/json") == 200
        )
    (span,) = links.stored["run-1"]
    assert (span.trace_id, span.parent_id, span.case_id, span.trial) == (
        TRACE,
        "00f067aa0ba902b7",
        "E2",
        3,
    )
    assert span.status == "error" and span.status_message == "boom"
    assert span.attributes == {
        "assay.stage": "generation",
        "ids": ["a"],
        "n": 3,
        "service.name": "app",
    }
    assert span.duration_ms == 0.002


def test_protobuf_from_the_sdk_exporter_and_late_traces() -> None:
    links = Links()
    receiver = SpanReceiver(links.lookup, links.sink, port=0).start()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=receiver.endpoint)))
    with provider.get_tracer("t").start_as_current_span("retrieval") as span:
        trace_id = format(span.get_span_context().trace_id, "032x")
    assert receiver.received == 1 and receiver.attached == 0  # its record is not stored yet
    links.known[trace_id] = ("run-2", "E1", 1)  # the case-trial's record arrives
    receiver.stop(quiet_s=0.05)
    provider.shutdown()
    assert [s.name for s in links.stored["run-2"]] == ["retrieval"]
    assert receiver.dropped == 0


def test_unknown_traces_are_counted_and_dropped_and_garbage_is_refused() -> None:
    links = Links()
    with SpanReceiver(links.lookup, links.sink, port=0) as receiver:
        assert _post(receiver.endpoint, _json_export(TRACE, "x"), "application/json") == 200
        assert _post(receiver.endpoint, b"\xff\x00garbage", "application/x-protobuf") == 400
        other = receiver.endpoint.replace("/v1/traces", "/v1/metrics")
        assert _post(other, b"", "application/x-protobuf") == 404
    assert links.stored == {}
    assert (receiver.received, receiver.dropped, receiver.rejected) == (1, 1, 1)
