"""Tracing: OpenTelemetry spans for every case-trial, into the run store (and OTLP), and
a run's aggregate metrics (outcomes, latency) over OTLP.

>>> session = start_tracing(store, run_id)          # doctest: +SKIP
>>> with session.tracer.start_as_current_span("assay.request"): ...  # doctest: +SKIP
>>> session.close()                                  # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports
from assay.tracing._limits import check_span_limits
from assay.tracing._otlp import otlp_metrics_url, otlp_traces_url, reachable_collector
from assay.tracing._propagation import inject_traceparent, traceparent
from assay.tracing._session import start_tracing

if TYPE_CHECKING:
    from assay.tracing._metrics import DIMENSIONS, dimensions, start_metrics
    from assay.tracing._receiver import SpanReceiver

# OpenTelemetry's SDK loads only when a run exports metrics or sends spans to a collector.
_METRICS = ("DIMENSIONS", "dimensions", "start_metrics")
_LAZY = dict.fromkeys(_METRICS, "assay.tracing._metrics")
# The span receiver (and http.server) loads only for a run that receives spans.
_LAZY["SpanReceiver"] = "assay.tracing._receiver"
__getattr__, __dir__ = lazy_exports(globals(), _LAZY)


__all__ = [
    "DIMENSIONS",
    "SpanReceiver",
    "check_span_limits",
    "dimensions",
    "inject_traceparent",
    "otlp_metrics_url",
    "otlp_traces_url",
    "reachable_collector",
    "start_metrics",
    "start_tracing",
    "traceparent",
]
