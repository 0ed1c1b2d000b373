"""A recorded span: one stage of one case-trial's request trace, as plain data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Span(BaseModel):
    """One OpenTelemetry span as stored with a run.

    Times are nanoseconds since the epoch, as OpenTelemetry records them. ``attributes``
    follow the GenAI semantic conventions where one exists (``gen_ai.request.model``) and
    the ``assay.*`` namespace otherwise. ``case_id`` and ``trial`` tie the span to a record.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    trace_id: str
    span_id: str
    parent_id: str | None = None
    name: str
    start_ns: int
    end_ns: int
    status: Literal["unset", "ok", "error"] = "unset"
    status_message: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    case_id: str | None = None
    trial: int | None = None

    @property
    def duration_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


SpanRow = tuple[
    str, str, str | None, str, int, int, str, str | None, Mapping[str, Any], str | None, int | None
]
"""A span as the run store takes it: the fields of ``Span`` in their order (trace_id,
span_id, parent_id, name, start_ns, end_ns, status, status_message, attributes, case_id,
trial), without a model around them."""


def span_row(span: Span) -> SpanRow:
    """The row of a stored span."""
    return (
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.name,
        span.start_ns,
        span.end_ns,
        span.status,
        span.status_message,
        span.attributes,
        span.case_id,
        span.trial,
    )
