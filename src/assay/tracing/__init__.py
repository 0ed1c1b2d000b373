"""Tracing: OpenTelemetry spans for every case-trial, into the run store (and OTLP).

>>> session = start_tracing(store, run_id)          # doctest: +SKIP
>>> with session.tracer.start_as_current_span("assay.request"): ...  # doctest: +SKIP
>>> session.close()                                  # doctest: +SKIP
"""

from assay.tracing._export import SpanSink, StoreSpanExporter, StoreSpanProcessor, to_span
from assay.tracing._propagation import inject_traceparent, traceparent
from assay.tracing._session import TracingSession, otlp_traces_url, start_tracing

__all__ = [
    "SpanSink",
    "StoreSpanExporter",
    "StoreSpanProcessor",
    "TracingSession",
    "inject_traceparent",
    "otlp_traces_url",
    "start_tracing",
    "to_span",
    "traceparent",
]
