"""Tracing: OpenTelemetry spans for every case-trial, into the run store (and OTLP), and
a run's aggregate metrics (outcomes, latency) over OTLP.

>>> session = start_tracing(store, run_id)          # doctest: +SKIP
>>> with session.tracer.start_as_current_span("assay.request"): ...  # doctest: +SKIP
>>> session.close()                                  # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports
from assay.tracing._otlp import otlp_metrics_url, otlp_traces_url, reachable_collector
from assay.tracing._propagation import inject_traceparent, traceparent
from assay.tracing._session import TracingSession, start_tracing
from assay.tracing._sink import SpanSink

if TYPE_CHECKING:
    from assay.tracing._export import StoreSpanExporter
    from assay.tracing._metrics import DIMENSIONS, RunMetrics, dimensions, start_metrics

# OpenTelemetry's SDK loads only when a run exports metrics or sends spans to a collector.
_METRICS = ("DIMENSIONS", "RunMetrics", "dimensions", "start_metrics")
_LAZY = {**dict.fromkeys(_METRICS, "assay.tracing._metrics")}
_LAZY["StoreSpanExporter"] = "assay.tracing._export"
__getattr__, __dir__ = lazy_exports(globals(), _LAZY)


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
