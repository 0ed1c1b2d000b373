"""Tracing: OpenTelemetry spans for every case-trial, into the run store (and OTLP), and
a run's aggregate metrics (outcomes, latency) over OTLP.

>>> session = start_tracing(store, run_id)          # doctest: +SKIP
>>> with session.tracer.start_as_current_span("assay.request"): ...  # doctest: +SKIP
>>> session.close()                                  # doctest: +SKIP
"""

from typing import TYPE_CHECKING, Any

from assay.tracing._export import SpanSink, StoreSpanExporter
from assay.tracing._otlp import otlp_metrics_url, otlp_traces_url, reachable_collector
from assay.tracing._propagation import inject_traceparent, traceparent
from assay.tracing._session import TracingSession, start_tracing

if TYPE_CHECKING:
    from assay.tracing._metrics import DIMENSIONS, RunMetrics, dimensions, start_metrics

# OpenTelemetry's metrics SDK loads only when a run exports metrics.
_METRICS = ("DIMENSIONS", "RunMetrics", "dimensions", "start_metrics")


def __getattr__(name: str) -> Any:
    if name in _METRICS:
        from assay.tracing import _metrics

        return getattr(_metrics, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DIMENSIONS",
    "RunMetrics",
    "SpanSink",
    "StoreSpanExporter",
    "TracingSession",
    "dimensions",
    "inject_traceparent",
    "otlp_metrics_url",
    "otlp_traces_url",
    "reachable_collector",
    "start_metrics",
    "start_tracing",
    "traceparent",
]
