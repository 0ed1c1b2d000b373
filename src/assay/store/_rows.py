"""Converting between the store's rows and assay's values."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from assay._fast.shared_fields import shared_field_names
from assay._fast.unvalidated import checked_instance
from assay.cases import Case
from assay.grading import STATUSES, Judgment
from assay.outcomes import OUTCOME_ADAPTER, Outcome, Record, Span, SpanRow, Usage
from assay.store._damage import (
    DamagedRow,
    item_damage,
    judgment_damage,
    problem,
    record_damage,
    run_damage,
    shown,
    span_damage,
    trial_policy_of,
)
from assay.store._dump import dump
from assay.store._info import RunInfo

_OUTCOME = OUTCOME_ADAPTER


def iso_time(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def judgment_values(
    run_id: str, batch: Sequence[Judgment], positions: Mapping[str, int]
) -> list[tuple[Any, ...]]:
    """The judgments table's values of each judgment, in its column order; ``positions``
    gives each case's dataset position (a case not in it: one past the last, as its
    record is stored)."""
    last = len(positions)
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
            positions.get(j.case_id, last),
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
    return [
        (run_id, t, s, p, name, start, end, status, message, dump(attributes), case, trial)
        for t, s, p, name, start, end, status, message, attributes, case, trial in batch
    ]


def loads(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


class SharedTexts:
    """Equal short texts read from many rows (a status, a reason, a grader name) kept as
    one string object, so a million rows do not hold a million copies of "passed"."""

    def __init__(self, limit: int = 65_536) -> None:
        self._seen: dict[str, str] = {}
        self._limit = limit

    def __call__(self, value: Any) -> Any:
        if type(value) is not str or len(value) > 80:
            return value
        found = self._seen.get(value)
        if found is not None:
            return found
        if len(self._seen) < self._limit:
            self._seen[value] = value
        return value


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def json_items(text: str) -> Iterator[Any]:
    """The items of the JSON array ``text``, parsed one at a time: a run's cases are read
    without holding every case's parsed data at once (a million cases' dictionaries
    would take gigabytes). A text that is not such an array raises ``DamagedRow``,
    naming the item that does not parse."""
    try:
        yield from _items(text)
    except ValueError as err:
        raise _snapshot_damage(text, err) from None


def snapshot_text(value: Any) -> str:
    """A run's stored ``cases`` as the text of its JSON array; any other value (bytes, a
    number) raises ``DamagedRow``."""
    if type(value) is not str:
        raise DamagedRow("runs", "cases", f"{shown(value)} is not JSON text")
    return value


def _items(text: str, starts: list[int] | None = None) -> Iterator[Any]:
    """The items of the JSON array ``text``; ``starts`` gets where each item begins."""
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if text[at : at + 1] != "[":
        raise ValueError("not a JSON array")
    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    if text[at : at + 1] == "]":
        at += 1
    else:
        while True:
            if starts is not None:
                starts.append(at)
            item, at = _DECODER.raw_decode(text, at)
            yield item
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if text[at : at + 1] == ",":
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
                continue
            if text[at : at + 1] != "]":
                raise ValueError(f"not a JSON array (no ',' or ']' at character {at})")
            at += 1
            break
    if _SPACE.match(text, at).end() != len(text):  # type: ignore[union-attr]
        raise ValueError(f"text after the JSON array (at character {at})")


def _snapshot_damage(text: str, err: ValueError) -> DamagedRow:
    """The damage of a run's cases snapshot whose reading failed with ``err``: the item
    that does not parse (found by reading the snapshot again), or the whole column."""

    if isinstance(err, json.JSONDecodeError):
        starts: list[int] = []
        try:
            for _ in _items(text, starts):
                pass
        except json.JSONDecodeError as found:
            # where in the item, as an item read alone says (``Items``)
            start = starts[-1]
            within = json.JSONDecodeError(found.msg, text[start:], found.pos - start)
            return item_damage(len(starts) - 1, None, within)
        except ValueError:
            pass
    return DamagedRow("runs", "cases", problem(err))


def case_of_item(position: int, raw: Any) -> Any:
    """The ``Case`` of item ``position`` (from 0) of a run's cases snapshot; an item that
    is not a valid case raises ``DamagedRow``."""

    try:
        return Case.model_validate(raw)
    except ValueError as err:
        raise item_damage(position, raw, err) from None


def run_info(row: Any) -> RunInfo:
    """The run information of a ``runs`` row; a row that is not valid raises
    ``DamagedRow``."""
    try:
        return _run_info(row)
    except (ValueError, TypeError) as err:
        raise run_damage(row, err) from None


def _run_info(row: Any) -> RunInfo:
    trial_policy_of(row["trial_policy"])
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
    """The record of a row (a mapping of the ``records`` columns), validated; a row that
    is not a valid record raises ``DamagedRow``."""
    try:
        return _record(row)
    except (ValueError, TypeError) as err:
        raise record_damage(row, err) from None


def _record(row: Any) -> Record:
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
    """The judgment of a row (a mapping of the ``judgments`` columns), validated; a row
    that is not a valid judgment raises ``DamagedRow``."""
    try:
        return _judgment(row)
    except (ValueError, TypeError) as err:
        raise judgment_damage(row, err) from None


def _judgment(row: Any) -> Judgment:
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
    """The span of a ``spans`` row; a row that is not a valid span raises ``DamagedRow``."""
    fields = {k: row[k] for k in row if k not in ("run_id", "attributes")}
    try:
        return Span(**fields, attributes=loads(row["attributes"], {}))
    except (ValueError, TypeError) as err:
        raise span_damage(row, err) from None


# -- reading many rows -------------------------------------------------------------------
# A report of a million case-trials reads a million records and judgments: validating each
# through pydantic costs most of the report. A row of the shape the store writes is made
# into its model directly (what validation would make from it, the same values and field
# set); any other row (a type out of place, an outcome of another shape) goes through the
# validating constructor above, which accepts or rejects it as it always did.

RECORD_COLUMNS = (
    "case_id",
    "trial",
    "outcome",
    "attempts",
    "latency_ms",
    "input_tokens",
    "output_tokens",
    "trace_id",
    "extra",
)
"""The ``records`` columns ``record_of`` takes, in its tuple's order."""

JUDGMENT_COLUMNS = (
    "case_id",
    "trial",
    "status",
    "reason",
    "grader",
    "grader_version",
    "score",
    "labels",
)
"""The ``judgments`` columns ``judgment_of`` takes, in its tuple's order."""

_RECORD_SET = shared_field_names(frozenset(Record.model_fields))
_USAGE_SET = shared_field_names(frozenset(Usage.model_fields))
_JUDGMENT_SET = shared_field_names(frozenset(Judgment.model_fields))
STORED_STATUSES = frozenset(STATUSES)


def _whole(value: Any) -> bool:
    return type(value) is int


def _optional_int(value: Any) -> bool:
    return value is None or type(value) is int


def _optional_float(value: Any) -> Any:
    """The float of a stored figure (an int is widened, as validation does); ``...``
    when it is not a number."""
    if value is None or type(value) is float:
        return value
    if type(value) is int:
        return float(value)
    return ...


def _optional_str(value: Any) -> bool:
    return value is None or type(value) is str


T = TypeVar("T")

_SEEN_OUTCOMES: dict[str, Outcome] = {}
_SEEN_MAX = 1_024


def remembered(seen: dict[str, T], text: str, make: Callable[[str], T]) -> T:
    """``make(text)``, kept in ``seen`` when the text is short (what a run repeats: the
    same fact, the same error), at most ``_SEEN_MAX`` of them."""
    found = seen.get(text)
    if found is None:
        found = make(text)
        if len(text) <= 512:
            if len(seen) >= _SEEN_MAX:
                seen.clear()
            seen[text] = found
    return found


def stored_outcome(text: str) -> Outcome:
    """The outcome stored as ``text``. Outcomes are immutable, so the records of a run
    that repeat one share one instance."""
    return remembered(_SEEN_OUTCOMES, text, _OUTCOME.validate_json)


def record_of(values: Sequence[Any]) -> Record:
    """The record of one row's ``RECORD_COLUMNS`` values."""
    try:
        case_id, trial, outcome, attempts, latency, tokens_in, tokens_out, trace_id, extra = values
        latency_ms = _optional_float(latency)
        extras = loads(extra, {}) if type(extra) is str or extra is None else None
        if (
            type(case_id) is not str
            or not case_id
            or not _whole(trial)
            or trial < 1
            or not _whole(attempts)
            or attempts < 1
            or latency_ms is ...
            or not _optional_int(tokens_in)
            or not _optional_int(tokens_out)
            or not _optional_str(trace_id)
            or type(extras) is not dict
            or type(outcome) is not str
        ):
            return record(dict(zip(RECORD_COLUMNS, values, strict=True)))
        usage = None
        if tokens_in is not None or tokens_out is not None:
            usage = checked_instance(
                Usage, {"input_tokens": tokens_in, "output_tokens": tokens_out}, _USAGE_SET
            )
        fields = {
            "case_id": case_id,
            "trial": trial,
            "outcome": stored_outcome(outcome),
            "attempts": attempts,
            "latency_ms": latency_ms,
            "usage": usage,
            "trace_id": trace_id,
            "extra": extras,
        }
        made: Record = checked_instance(Record, fields, _RECORD_SET)
        return made
    except DamagedRow:
        raise
    except (ValueError, TypeError) as err:
        raise record_damage(dict(zip(RECORD_COLUMNS, values, strict=True)), err) from None


def judgment_of(values: Sequence[Any]) -> Judgment:
    """The judgment of one row's ``JUDGMENT_COLUMNS`` values."""
    try:
        case_id, trial, status, reason, grader, version, raw_score, raw_labels = values
        score = _optional_float(raw_score)
        if raw_labels == "[]" or raw_labels is None:
            labels: Any = []
        else:
            labels = loads(raw_labels, []) if type(raw_labels) is str else None
        if (
            type(case_id) is not str
            or not _whole(trial)
            or status not in STORED_STATUSES
            or type(reason) is not str
            or type(grader) is not str
            or type(version) is not str
            or score is ...
            or type(labels) is not list
            or any(type(label) is not str for label in labels)
        ):
            return judgment(dict(zip(JUDGMENT_COLUMNS, values, strict=True)))
        fields = {
            "case_id": case_id,
            "trial": trial,
            "status": status,
            "reason": reason,
            "grader": grader,
            "grader_version": version,
            "score": score,
            "labels": tuple(labels),
        }
        made: Judgment = checked_instance(Judgment, fields, _JUDGMENT_SET)
        return made
    except DamagedRow:
        raise
    except (ValueError, TypeError) as err:
        raise judgment_damage(dict(zip(JUDGMENT_COLUMNS, values, strict=True)), err) from None
