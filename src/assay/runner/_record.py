"""The record of a case-trial the runner called its target for."""

from __future__ import annotations

from typing import Any

from assay.outcomes import Outcome, Record, Usage


def called_record(
    case_id: str,
    trial: int,
    outcome: Outcome,
    attempts: int,
    latency_ms: float | None,
    usage: Usage | None,
    trace_id: str | None,
    extra: dict[str, Any],
) -> Record:
    """The record of ``case_id`` at ``trial`` with every field given: the record
    validating these values makes (``extra`` copied, the outcome and usage kept)."""
    return Record(
        case_id=case_id,
        trial=trial,
        outcome=outcome,
        attempts=attempts,
        latency_ms=latency_ms,
        usage=usage,
        trace_id=trace_id,
        extra=extra,
    )
