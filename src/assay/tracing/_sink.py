"""Where a run's spans go, and the span fields both tracers read the same way; none of it
needs the OpenTelemetry SDK."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from opentelemetry.trace import StatusCode

from assay.outcomes import Span, span_names

CASE_ID = span_names.CASE_ID
TRIAL = span_names.TRIAL
STATUS: dict[StatusCode, Literal["unset", "ok", "error"]] = {
    StatusCode.UNSET: "unset",
    StatusCode.OK: "ok",
    StatusCode.ERROR: "error",
}


class SpanSink(Protocol):
    """Where spans go: the run store's ``add_spans``. A sink that also has
    ``add_span_rows(run_id, rows)`` (the run store does) gets the store tracer's spans as
    rows instead (``assay.outcomes._span.SpanRow``)."""

    def add_spans(self, run_id: str, spans: Sequence[Span]) -> None: ...


def case_of_attributes(attributes: Mapping[str, Any] | None) -> tuple[str | None, int | None]:
    if not attributes or CASE_ID not in attributes:
        return None, None
    trial = attributes.get(TRIAL)
    return str(attributes[CASE_ID]), int(trial) if isinstance(trial, int) else None
