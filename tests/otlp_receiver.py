"""A minimal OTLP/HTTP collector on 127.0.0.1 for tests: it decodes and keeps the trace
requests (``/v1/traces``) and the metric requests (``/v1/metrics``)."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


class Receiver(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[tuple[str, ExportTraceServiceRequest]] = []
        self.metric_requests: list[ExportMetricsServiceRequest] = []


class Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path == "/v1/metrics":
            metrics = ExportMetricsServiceRequest()
            metrics.ParseFromString(body)
            self.server.metric_requests.append(metrics)
            reply = ExportMetricsServiceResponse().SerializeToString()
        else:
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
    """A local OTLP/HTTP collector on a free loopback port; it keeps every request."""
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


def metric_points(receiver: Receiver) -> list[tuple[str, dict[str, str], float]]:
    """Every data point the collector received: metric name, attributes, and the value
    (a sum's value, a histogram's count)."""
    points: list[tuple[str, dict[str, str], float]] = []
    for message in receiver.metric_requests:
        for resource_metrics in message.resource_metrics:
            for scope in resource_metrics.scope_metrics:
                for metric in scope.metrics:
                    kind = metric.WhichOneof("data")
                    for point in getattr(metric, kind).data_points:
                        attributes = {a.key: a.value.string_value for a in point.attributes}
                        value = point.count if kind == "histogram" else point.as_int
                        points.append((metric.name, attributes, float(value)))
    return points


def metric_resources(receiver: Receiver) -> list[dict[str, str]]:
    """The resource attributes of every metrics export."""
    return [
        {a.key: a.value.string_value for a in resource_metrics.resource.attributes}
        for message in receiver.metric_requests
        for resource_metrics in message.resource_metrics
    ]
