"""W3C trace context for targets that call out over HTTP: the ``traceparent`` header."""

from __future__ import annotations

from collections.abc import MutableMapping

from opentelemetry.trace import Span, get_current_span, set_span_in_context
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

_PROPAGATOR = TraceContextTextMapPropagator()


def traceparent(span: Span | None = None) -> str | None:
    """The ``traceparent`` value for ``span`` (default: the current span), or None when
    there is no recording span.

    The format is ``00-<trace id>-<span id>-<flags>`` (W3C Trace Context).
    """
    target = span if span is not None else get_current_span()
    if not target.get_span_context().is_valid:
        return None
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=set_span_in_context(target))
    return carrier.get("traceparent")


def inject_traceparent(
    headers: MutableMapping[str, str], value: str | None
) -> MutableMapping[str, str]:
    """Add ``traceparent`` (and nothing else) to outgoing headers when a value is given."""
    if value:
        headers["traceparent"] = value
    return headers
