"""A minimal OTLP/HTTP trace collector on 127.0.0.1 for tests: it decodes and keeps requests."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


class Receiver(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[tuple[str, ExportTraceServiceRequest]] = []


class Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        message = ExportTraceServiceRequest()
        message.ParseFromString(body)
        self.server.requests.append((self.path, message))
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def otlp_receiver() -> Iterator[Receiver]:
    """A local OTLP/HTTP trace collector on a free loopback port; it keeps every request."""
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def span_names(receiver: Receiver) -> list[str]:
    """The names of every span the collector received."""
    return [
        span.name
        for _, message in receiver.requests
        for resource_spans in message.resource_spans
        for scope in resource_spans.scope_spans
        for span in scope.spans
    ]
