"""Finished OpenTelemetry spans into the run store, as ``assay.outcomes.Span`` values.

Spans end children first, so a stage span ends before the request span that names its
case. The processor remembers each trace's root span when it starts and the exporter
reads the case id and trial from it when the batch is written.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace import Span as SdkSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from assay.outcomes import Span
from assay.tracing._sink import STATUS, SpanSink, case_of_attributes


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def to_span(span: ReadableSpan, case_id: str | None = None, trial: int | None = None) -> Span:
    """The stored form of a finished span (exception events become ``exception.*``)."""
    context = span.get_span_context()
    assert context is not None
    attributes = {k: _plain(v) for k, v in (span.attributes or {}).items()}
    for event in span.events:
        if event.name == "exception" and event.attributes:
            for key in ("exception.type", "exception.message"):
                if key in event.attributes:
                    attributes.setdefault(key, event.attributes[key])
    own_case, own_trial = case_of_attributes(span.attributes)
    # Every field is built here with its declared type: validating it again is pure cost
    # on the per-case path.
    return Span.model_construct(
        trace_id=format(context.trace_id, "032x"),
        span_id=format(context.span_id, "016x"),
        parent_id=format(span.parent.span_id, "016x") if span.parent is not None else None,
        name=span.name,
        start_ns=span.start_time or 0,
        end_ns=span.end_time or span.start_time or 0,
        status=STATUS[span.status.status_code],
        status_message=span.status.description,
        attributes=attributes,
        case_id=own_case or case_id,
        trial=own_trial if own_trial is not None else trial,
    )


class StoreSpanExporter(SpanExporter):
    """Writes batches of finished spans to a run store, tagged with their case and trial."""

    def __init__(self, sink: SpanSink, run_id: str) -> None:
        self.sink = sink
        self.run_id = run_id
        self.roots: dict[int, ReadableSpan] = {}

    def case_of(self, span: ReadableSpan) -> tuple[str | None, int | None]:
        context = span.get_span_context()
        root = self.roots.get(context.trace_id) if context is not None else None
        return case_of_attributes(root.attributes if root is not None else None)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        converted = [to_span(s, *self.case_of(s)) for s in spans]
        self.sink.add_spans(self.run_id, converted)
        for span in spans:  # a root ends after its children: its trace is complete
            context = span.get_span_context()
            root = self.roots.get(context.trace_id) if context is not None else None
            if context is not None and root is not None and root.context.span_id == context.span_id:
                del self.roots[context.trace_id]
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.roots.clear()


class StoreSpanProcessor(SpanProcessor):
    """Buffers finished spans and hands them to a ``StoreSpanExporter`` in batches.

    Export happens in the thread that ends the span (never a background thread), so a
    SQLite store is only ever used from the thread that opened it.
    """

    def __init__(self, exporter: StoreSpanExporter, batch_size: int = 256) -> None:
        self.exporter = exporter
        self.batch_size = batch_size
        self._buffer: list[ReadableSpan] = []
        self._lock = threading.Lock()

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        if span.parent is None or span.parent.is_remote:
            self.exporter.roots[span.context.trace_id] = span

    def on_end(self, span: ReadableSpan) -> None:
        with self._lock:
            self._buffer.append(span)
            full = len(self._buffer) >= self.batch_size
        if full:
            self.force_flush()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        with self._lock:
            batch, self._buffer = self._buffer, []
        if batch:
            self.exporter.export(batch)
        return True

    def shutdown(self) -> None:
        self.force_flush()
        self.exporter.shutdown()
