"""The record of a case-trial the runner called its target for."""

from __future__ import annotations

from typing import Any

from assay._fast.shared_fields import shared_field_names
from assay._fast.unvalidated import checked_instance
from assay.outcomes import Abstain, Answer, Error, Outcome, Record, Usage

_OUTCOME_TYPES = frozenset({Answer, Abstain, Error})
_CALLED_FIELDS = shared_field_names(frozenset(Record.model_fields))


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
    if (
        type(case_id) is str
        and case_id
        and type(trial) is int
        and trial >= 1
        and type(outcome) in _OUTCOME_TYPES
        and type(attempts) is int
        and attempts >= 1
        and (latency_ms is None or type(latency_ms) is float)
        and (usage is None or type(usage) is Usage)
        and (trace_id is None or type(trace_id) is str)
        and type(extra) is dict
        and all(type(key) is str for key in extra)
    ):
        # The usual shape: values already of their fields' types, checked above or by
        # the models that made them (the outcome and usage), so nothing is validated twice.
        values = {
            "case_id": case_id,
            "trial": trial,
            "outcome": outcome,
            "attempts": attempts,
            "latency_ms": latency_ms,
            "usage": usage,
            "trace_id": trace_id,
            "extra": dict(extra),
        }
        return checked_instance(Record, values, _CALLED_FIELDS)
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
