"""A small policy-answering service behind HTTP, instrumented with the OpenTelemetry SDK.

It exports its own spans (retrieval, context assembly, generation) over OTLP/HTTP to
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (default: assay's receiver on 127.0.0.1:4318), and
joins the caller's trace through the W3C ``traceparent`` (and ``tracestate``) headers. It has two planted
faults for ``assay diagnose`` to find: retrieval keeps only its best candidate (so an
exception section that ranks second never reaches the model), and the model call fails
on any question about warranties.

    python examples/traced-app/app.py --port 8080
"""

from __future__ import annotations

import argparse
import os
import re

from aiohttp import web
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

SECTIONS = {
    "acme/standard-window": (
        "Items bought online can be returned within 30 days: the standard return window.",
        "return_window_30_days",
    ),
    "acme/custom-exception": (
        "Custom-printed products are excluded from returns.",
        "custom_excluded",
    ),
    "acme/warranty": ("Electronics carry a two-year warranty.", "warranty_two_years"),
}
TOP_K = 1  # the planted retrieval fault: one candidate is all the model ever sees
MODEL = "policy-model-1"


def tracer_provider() -> TracerProvider:
    endpoint = os.environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4318/v1/traces"
    )
    provider = TracerProvider(resource=Resource({"service.name": "policy-service"}))
    # Exported in the background every 200 ms (the default waits 5 s), so requests never
    # wait on the exporter and spans reach the receiver shortly after each reply.
    processor = BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint), schedule_delay_millis=200)
    provider.add_span_processor(processor)
    return provider


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def retrieve(question: str) -> list[tuple[str, int]]:
    """Sections sharing words with the question, best first."""
    asked = _words(question)
    scored = [(sid, len(asked & _words(text))) for sid, (text, _) in SECTIONS.items()]
    return sorted([s for s in scored if s[1] > 0], key=lambda s: -s[1])


def answer(tracer: trace.Tracer, question: str) -> dict[str, object]:
    with tracer.start_as_current_span("retrieval") as span:
        ranked = retrieve(question)
        selected = [sid for sid, _ in ranked[:TOP_K]]
        span.set_attributes(
            {
                "assay.stage": "retrieval",
                "assay.retrieval.candidate_ids": [sid for sid, _ in ranked],
                "assay.retrieval.candidate_scores": [str(score) for _, score in ranked],
                "assay.retrieval.selected_ids": selected,
            }
        )
    with tracer.start_as_current_span("context_assembly") as span:
        span.set_attributes(
            {"assay.stage": "context_assembly", "assay.context.section_ids": selected}
        )
    with tracer.start_as_current_span("generation") as span:
        span.set_attributes(
            {
                "assay.stage": "generation",
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": MODEL,
            }
        )
        if "warranty" in _words(question):  # the planted model failure
            error = RuntimeError("model backend returned 503")
            span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, str(error)))
            raise error
        if not selected:
            return {"abstain": True, "text": "The policy does not say."}
        text, fact = SECTIONS[selected[0]]
        span.set_attribute("gen_ai.response.finish_reasons", ["stop"])
        return {"abstain": False, "fact": fact, "text": text, "sources": selected}


def make_app(provider: TracerProvider) -> web.Application:
    tracer = provider.get_tracer("policy-service")
    propagator = TraceContextTextMapPropagator()

    async def ask(request: web.Request) -> web.Response:
        body = await request.json()
        parent = propagator.extract(dict(request.headers))
        with tracer.start_as_current_span(
            "POST /ask", context=parent, kind=trace.SpanKind.SERVER
        ) as span:
            try:
                reply = answer(tracer, str(body.get("question", "")))
            except RuntimeError as exc:
                span.set_status(Status(StatusCode.ERROR, str(exc)))
                return web.json_response({"error": str(exc)}, status=500)
            return web.json_response(reply)

    app = web.Application()
    app.router.add_post("/ask", ask)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    provider = tracer_provider()
    try:
        web.run_app(make_app(provider), host="127.0.0.1", port=args.port, print=None)
    finally:
        provider.shutdown()


if __name__ == "__main__":
    main()
