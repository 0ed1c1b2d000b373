"""A record: one recorded outcome for one case and trial, with what was measured around it."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from assay._fast.shared_fields import CompactModel
from assay.outcomes._outcome import Outcome


class Usage(CompactModel):
    """Token usage reported by a model, when known."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    input_tokens: int | None = None
    output_tokens: int | None = None


class Record(CompactModel):
    """The outcome recorded for ``case_id`` at ``trial`` (1-based).

    ``attempts``, ``latency_ms``, ``usage`` and ``trace_id`` are filled by the runner;
    results read from a file usually carry only the outcome.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_id: str = Field(min_length=1)
    trial: int = Field(default=1, ge=1)
    outcome: Outcome
    attempts: int = Field(default=1, ge=1)
    latency_ms: float | None = None
    usage: Usage | None = None
    trace_id: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, int]:
        """(case id, trial): what identifies a record within a run."""
        return (self.case_id, self.trial)
