"""One run's tracing: a private tracer whose spans go to the run store, and optionally to
an OTLP/HTTP collector too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from opentelemetry.trace import Tracer

from assay._version import __version__
from assay.outcomes import span_names
from assay.tracing._sink import SpanSink
from assay.tracing._store_tracer import StoreTracer

if TYPE_CHECKING:
    from assay.tracing._export import StoreSpanExporter

RUN_ID = span_names.RUN_ID


class SpanFlusher(Protocol):
    """What writes a run's ended spans: an SDK tracer provider or a ``StoreTracer``."""

    def force_flush(self, timeout_millis: int = 30000) -> bool: ...

    def shutdown(self) -> None: ...


@dataclass
class TracingSession:
    """The tracer of one run; ``flush()`` writes what is buffered, ``close()`` ends it.

    The tracer is private to the run: the process-wide global provider is never set.
    """

    run_id: str
    provider: SpanFlusher
    tracer: Tracer
    store_exporter: StoreSpanExporter | StoreTracer | None = None

    def open_traces(self) -> int:
        """Request traces started whose root span is not yet written to the store."""
        return len(self.store_exporter.roots) if self.store_exporter is not None else 0

    def flush(self) -> None:
        self.provider.force_flush()

    def close(self) -> None:
        self.provider.shutdown()

    def __enter__(self) -> TracingSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_tracing(
    store: SpanSink, run_id: str, otlp_endpoint: str | None = None, batch_size: int = 256
) -> TracingSession:
    """Start tracing a run: spans go to ``store`` (and to ``otlp_endpoint`` when given).

    Without a collector the spans are made by a ``StoreTracer``, which records what the
    SDK would at a fraction of its cost; with one, by the OpenTelemetry SDK."""
    if otlp_endpoint is None:
        tracer = StoreTracer(store, run_id, batch_size=batch_size)
        return TracingSession(run_id, tracer, tracer, tracer)
    return sdk_tracing(store, run_id, otlp_endpoint, batch_size)


def sdk_tracing(
    store: SpanSink, run_id: str, otlp_endpoint: str | None = None, batch_size: int = 256
) -> TracingSession:
    """Tracing through the OpenTelemetry SDK: spans go to ``store`` and, when given, to
    ``otlp_endpoint``."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON

    # deferred with the SDK: both modules load it, and an untraced run never needs it
    from assay.tracing._export import StoreSpanExporter, StoreSpanProcessor
    from assay.tracing._otlp import otlp_exporter

    resource = Resource({"service.name": "assay", "service.version": __version__, RUN_ID: run_id})
    provider = TracerProvider(resource=resource, sampler=ALWAYS_ON)
    store_exporter = StoreSpanExporter(store, run_id)
    provider.add_span_processor(StoreSpanProcessor(store_exporter, batch_size=batch_size))
    if otlp_endpoint is not None:
        provider.add_span_processor(BatchSpanProcessor(otlp_exporter(otlp_endpoint, "traces")))
    tracer = provider.get_tracer("assay", __version__)
    return TracingSession(run_id, provider, tracer, store_exporter)
