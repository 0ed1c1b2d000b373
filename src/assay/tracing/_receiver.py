"""An OTLP/HTTP receiver on loopback: the application under test exports its own spans
here during ``assay run --receive-spans``, and they are stored with the case-trial whose
request (``traceparent``) started their trace.

Spans are matched to case-trials through the trace id each record stores. A span whose
trace is not yet recorded (the case-trial is still running) waits and is attached when
its record arrives; spans still unmatched when the receiver stops are counted, dropped
and reported.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from assay.outcomes import Span

TRACES_PATH = "/v1/traces"
MAX_BODY_BYTES = 32 * 1024 * 1024
_STATUS = {0: "unset", 1: "ok", 2: "error"}

Lookup = Callable[[Sequence[str]], dict[str, tuple[str, str, int]]]
"""Trace ids → (run id, case id, trial) for the trace ids that a stored record carries."""
Sink = Callable[[str, Sequence[Span]], None]
"""Stores spans for a run (``RunStore.add_spans``)."""


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return json.dumps({kv.key: _value(kv.value) for kv in any_value.kvlist_value.values})
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def decode_spans(body: bytes, content_type: str) -> list[Span]:
    """The spans of an OTLP ``ExportTraceServiceRequest`` in protobuf or OTLP/JSON."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    if "json" in content_type:
        data = json.loads(body.decode("utf-8"))
        for resource in data.get("resourceSpans") or []:
            for scope in resource.get("scopeSpans") or []:
                for span in scope.get("spans") or []:
                    for key in ("traceId", "spanId", "parentSpanId"):  # OTLP/JSON ids are hex
                        if span.get(key):
                            span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
        json_format.ParseDict(data, request, ignore_unknown_fields=True)
    else:
        request.ParseFromString(body)
    found = []
    for resource in request.resource_spans:
        service = {kv.key: _value(kv.value) for kv in resource.resource.attributes}
        for scope in resource.scope_spans:
            for span in scope.spans:
                attributes = {kv.key: _value(kv.value) for kv in span.attributes}
                if "service.name" in service:
                    attributes.setdefault("service.name", service["service.name"])
                if span.trace_state:  # the W3C tracestate the application's span carried
                    attributes.setdefault("w3c.tracestate", span.trace_state)
                for event in span.events:
                    if event.name == "exception":
                        for kv in event.attributes:
                            if kv.key in ("exception.type", "exception.message"):
                                attributes.setdefault(kv.key, _value(kv.value))
                found.append(
                    Span(
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex() or None,
                        name=span.name,
                        start_ns=span.start_time_unix_nano,
                        end_ns=span.end_time_unix_nano or span.start_time_unix_nano,
                        status=_STATUS.get(span.status.code, "unset"),
                        status_message=span.status.message or None,
                        attributes=attributes,
                    )
                )
    return found


class SpanReceiver:
    """Receives OTLP/HTTP trace exports on ``127.0.0.1:port`` in a background thread.

    ``lookup`` and ``sink`` are called from the receiver's thread only (give it a store
    of its own). Use as a context manager, or ``start()`` then ``stop()``.
    """

    def __init__(self, lookup: Lookup, sink: Sink, port: int = 4318) -> None:
        self.lookup = lookup
        self.sink = sink
        self.received = 0
        self.attached = 0
        self.dropped = 0
        self.rejected = 0
        self._pending: list[Span] = []
        self._lock = threading.Lock()
        self._last_arrival = time.monotonic()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def endpoint(self) -> str:
        """The URL an OTLP/HTTP exporter sends traces to."""
        return f"http://127.0.0.1:{self.port}{TRACES_PATH}"

    def start(self) -> SpanReceiver:
        self._thread.start()
        return self

    def accept(self, spans: list[Span]) -> None:
        """Queue spans and attach every queued span whose trace is now recorded."""
        with self._lock:
            self.received += len(spans)
            self._pending.extend(spans)
            self._last_arrival = time.monotonic()
            self._attach()

    def _attach(self) -> None:
        if not self._pending:
            return
        links = self.lookup(sorted({s.trace_id for s in self._pending}))
        by_run: dict[str, list[Span]] = {}
        waiting = []
        for span in self._pending:
            link = links.get(span.trace_id)
            if link is None:
                waiting.append(span)
                continue
            run_id, case_id, trial = link
            by_run.setdefault(run_id, []).append(
                span.model_copy(update={"case_id": case_id, "trial": trial})
            )
        for run_id, spans in by_run.items():
            self.sink(run_id, spans)
            self.attached += len(spans)
        self._pending = waiting

    def stop(self, quiet_s: float = 1.0, limit_s: float = 10.0) -> None:
        """Wait until no span has arrived for ``quiet_s`` (at most ``limit_s``), attach
        what can be, drop the rest (counted in ``dropped``) and close the port."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            with self._lock:
                self._attach()
                quiet = time.monotonic() - self._last_arrival >= quiet_s
                if quiet:
                    break
            time.sleep(0.05)
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            self._attach()
            self.dropped += len(self._pending)
            self._pending = []

    def __enter__(self) -> SpanReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(receiver: SpanReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.split("?")[0] != TRACES_PATH:
                self._reply(404, b"only /v1/traces is received here")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self._reply(413, b"too large")
                return
            body = self.rfile.read(length)
            content_type = self.headers.get("Content-Type", "application/x-protobuf")
            try:
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                spans = decode_spans(body, content_type)
            except Exception:  # a malformed export must not stop the run: count it
                receiver.rejected += 1
                self._reply(400, b"not an OTLP trace export")
                return
            receiver.accept(spans)
            json_reply = "json" in content_type
            self._reply(200, b"{}" if json_reply else b"", json_reply)

        def _reply(self, code: int, body: bytes, json_reply: bool = False) -> None:
            self.send_response(code)
            kind = "application/json" if json_reply else "application/x-protobuf"
            self.send_header("Content-Type", kind if code == 200 else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler
