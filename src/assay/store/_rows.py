"""Converting between the store's rows and assay's values."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter

from assay.grading import Judgment
from assay.outcomes import Outcome, Record, Span, Usage
from assay.outcomes._span import SpanRow
from assay.store._info import RunInfo

_OUTCOME: TypeAdapter[Outcome] = TypeAdapter(Outcome)


_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dump(value: Any) -> str:
    """Compact JSON text, non-ASCII characters kept as they are."""
    return _JSON.encode(value)


def iso_time(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def judgment_values(run_id: str, batch: Sequence[Judgment]) -> list[tuple[Any, ...]]:
    """The judgments table's values of each judgment, in its column order."""
    return [
        (
            run_id,
            j.case_id,
            j.trial,
            j.grader,
            j.grader_version,
            j.status,
            j.reason,
            j.score,
            dump(list(j.labels)) if j.labels else "[]",
        )
        for j in batch
    ]


def span_rows(run_id: str, batch: Sequence[Span]) -> list[dict[str, Any]]:
    return [
        {
            "run_id": run_id,
            "trace_id": s.trace_id,
            "span_id": s.span_id,
            "parent_id": s.parent_id,
            "name": s.name,
            "start_ns": s.start_ns,
            "end_ns": s.end_ns,
            "status": s.status,
            "status_message": s.status_message,
            "attributes": dump(s.attributes),
            "case_id": s.case_id,
            "trial": s.trial,
        }
        for s in batch
    ]


def span_values(run_id: str, batch: Sequence[SpanRow]) -> list[tuple[Any, ...]]:
    """The spans table's values of each row, in its column order."""
    encode = _JSON.encode
    return [
        (run_id, t, s, p, name, start, end, status, message, encode(attributes), case, trial)
        for t, s, p, name, start, end, status, message, attributes, case, trial in batch
    ]


def loads(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


def run_info(row: Any) -> RunInfo:
    return RunInfo(
        id=row["id"],
        started_at=datetime.fromisoformat(row["started_at"]),
        ended_at=datetime.fromisoformat(row["ended_at"]) if row["ended_at"] else None,
        status=row["status"],
        suite_path=row["suite_path"],
        suite=loads(row["suite"], {}),
        dataset_name=row["dataset_name"],
        dataset_version=row["dataset_version"],
        target=loads(row["target"], {}),
        target_hash=row["target_hash"],
        graders=loads(row["graders"], []),
        trials=row["trials"],
        trial_policy=row["trial_policy"],
        assay_version=row["assay_version"],
        git_commit=row["git_commit"],
        packages=loads(row["packages"], {}),
        metadata=loads(row["metadata"], {}),
        summary=loads(row["summary"], None),
    )


def record(row: Any) -> Record:
    usage = None
    if row["input_tokens"] is not None or row["output_tokens"] is not None:
        usage = Usage(input_tokens=row["input_tokens"], output_tokens=row["output_tokens"])
    return Record(
        case_id=row["case_id"],
        trial=row["trial"],
        outcome=_OUTCOME.validate_json(row["outcome"]),
        attempts=row["attempts"],
        latency_ms=row["latency_ms"],
        usage=usage,
        trace_id=row["trace_id"],
        extra=loads(row["extra"], {}),
    )


def judgment(row: Any) -> Judgment:
    return Judgment(
        case_id=row["case_id"],
        trial=row["trial"],
        status=row["status"],
        reason=row["reason"],
        grader=row["grader"],
        grader_version=row["grader_version"],
        score=row["score"],
        labels=tuple(loads(row["labels"], [])),
    )


def span(row: Any) -> Span:
    fields = {k: row[k] for k in row if k not in ("run_id", "attributes")}
    return Span(**fields, attributes=loads(row["attributes"], {}))
