"""A tiny application that runs its own two-tool agent loop and exports its spans with the
OpenTelemetry SDK (GenAI conventions): it looks the order up, fails to start the return,
and still answers that the return has been started.

    python span_agent_app.py --port 8080   (exports to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
"""

from __future__ import annotations

import argparse
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator


def tracer() -> Tracer:
    provider = TracerProvider(resource=Resource({"service.name": "returns-agent"}))
    exporter = OTLPSpanExporter(endpoint=os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"])
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=100))
    return provider.get_tracer("returns-agent")


def loop(tracer: Tracer, question: str) -> str:
    """The application's own loop: a model turn asks for two tools, a second one answers."""
    with tracer.start_as_current_span("chat returns-model") as span:
        span.set_attributes(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "returns-model",
                "gen_ai.response.finish_reasons": ["tool_calls"],
                "gen_ai.usage.input_tokens": 40,
                "gen_ai.usage.output_tokens": 12,
            }
        )
    with tracer.start_as_current_span("execute_tool lookup_order") as span:
        span.set_attributes(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup_order",
                "gen_ai.tool.call.id": "call-1",
                "gen_ai.tool.call.arguments": json.dumps({"order_id": "A1002"}),
                "gen_ai.tool.call.result": json.dumps({"status": "delivered"}),
            }
        )
    with tracer.start_as_current_span("execute_tool start_return") as span:
        span.set_attributes(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "start_return",
                "gen_ai.tool.call.id": "call-2",
                "gen_ai.tool.call.arguments": json.dumps({"order_id": "A1002"}),
                "error.type": "ServiceUnavailable",
            }
        )
        span.set_status(Status(StatusCode.ERROR, "returns service unavailable"))
    with tracer.start_as_current_span("chat returns-model") as span:
        span.set_attributes(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "returns-model",
                "gen_ai.response.finish_reasons": ["stop"],
            }
        )
    return "Done! Your return has been started."


def serve(port: int) -> None:
    traced = tracer()
    propagator = TraceContextTextMapPropagator()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body: dict[str, Any] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            context = propagator.extract(dict(self.headers.items()))
            with traced.start_as_current_span("POST /ask", context=context):
                answer = loop(traced, str(body.get("question", "")))
            reply = json.dumps({"text": answer}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            return

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    serve(parser.parse_args().port)
