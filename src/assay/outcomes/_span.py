"""A recorded span: one stage of one case-trial's request trace, as plain data."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Span(BaseModel):
    """One OpenTelemetry span as stored with a run.

    Times are nanoseconds since the epoch, as OpenTelemetry records them. ``attributes``
    follow the GenAI semantic conventions where one exists (``gen_ai.request.model``) and
    the ``assay.*`` namespace otherwise. ``case_id`` and ``trial`` tie the span to a record.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

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
