"""Parsing result lines (``{"id", "kind", ...}``) into records, and checking them against a
dataset before anything is scored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError

from assay._fast.shared_fields import shared_field_names
from assay._fast.unvalidated import checked_instance
from assay._validation import SHOWN_UNKNOWN, parse_located, problems_from
from assay.errors import (
    MAX_TRIALS,
    DuplicateResultError,
    Location,
    Problem,
    TrialNumberError,
    UnknownResultIdError,
    did_you_mean,
)
from assay.outcomes._outcome import OUTCOME_ADAPTER, Abstain, Answer, Error, Outcome
from assay.outcomes._record import Record

_OUTCOME = OUTCOME_ADAPTER
_RECORD_FIELDS = {"trial", "attempts", "latency_ms", "usage", "trace_id"}
KINDS = ("answer", "abstain", "error")
_KIND_FIELDS = {
    "answer": {"fact", "text", "citations"},
    "abstain": {"reason", "text"},
    "error": {"class", "error_class", "message", "raw"},
}
_COMMON_FIELDS = {"id", "kind"} | _RECORD_FIELDS
RESULT_FIELDS: tuple[str, ...] = tuple(sorted(_COMMON_FIELDS.union(*_KIND_FIELDS.values())))


@dataclass(frozen=True)
class Results:
    """Records read from somewhere, each with the location it was read from."""

    records: tuple[Record, ...]
    locations: tuple[Location | None, ...] = ()
    source: str | None = None

    def location_of(self, index: int) -> Location | None:
        """Where record ``index`` was read from (file and line); None when not known."""
        return self.locations[index] if self.locations else None


def _allowed_with(name: str) -> str:
    kinds = [f'"{k}"' for k in KINDS if name in _KIND_FIELDS[k]]
    return " or ".join(kinds)


def _shape_problems(raw: dict[str, Any], location: Location) -> list[Problem]:
    """Problems with the line's keys: id, kind, unknown fields, fields of another kind."""
    problems: list[Problem] = []
    case_id = raw.get("id")
    if case_id is None:
        problems.append(
            Problem("id is required (the case id this result belongs to)", location, "id")
        )
    elif not isinstance(case_id, str) or not case_id:
        problems.append(Problem(f"id must be a non-empty string (got {case_id!r})", location, "id"))
    kind = raw.get("kind")
    if kind is None:
        problems.append(
            Problem('kind is required: "answer", "abstain" or "error"', location, "kind")
        )
    elif kind not in KINDS:
        hint = did_you_mean(str(kind), KINDS)
        problems.append(
            Problem(
                f'kind must be "answer", "abstain" or "error" (got {kind!r}){hint}',
                location,
                "kind",
            )
        )
    unknown = 0
    for key in raw:
        if key not in RESULT_FIELDS:
            unknown += 1
            if unknown <= SHOWN_UNKNOWN:  # a line of 100,000 keys gets one message, quickly
                hint = did_you_mean(str(key), RESULT_FIELDS)
                problems.append(Problem(f'unknown field "{key}"{hint}', location, str(key)))
        elif kind in KINDS and key not in _COMMON_FIELDS and key not in _KIND_FIELDS[kind]:
            problems.append(
                Problem(f"{key} is only allowed when kind is {_allowed_with(key)}", location, key)
            )
    if unknown > SHOWN_UNKNOWN:
        more = unknown - SHOWN_UNKNOWN
        problems.append(Problem(f"… and {more:,} more unknown fields", location))
    if kind == "answer" and raw.get("fact") is None and raw.get("text") is None:
        problems.append(Problem('fact is required when kind is "answer"', location, "fact"))
    return problems


def parse_result_line(raw: Any, location: Location) -> Record | list[Problem]:
    """A record from one flat result object, or the problems that stop it being one.

    ``{"id": "E1", "kind": "answer", "fact": "return_window_30_days"}``: ``kind`` is
    answer, abstain or error; an answer needs ``fact`` (or ``text`` for free-text graders).
    """
    if not isinstance(raw, dict):
        return [Problem(f"a result must be an object, got {type(raw).__name__}", location)]
    if usual_shape(raw):
        plain = _plain_record(raw)
        if plain is not None:
            return plain
    problems = _shape_problems(raw, location)
    if problems:
        return problems
    plain = _plain_record(raw)
    if plain is not None:
        return plain
    raw = dict(raw)
    case_id = raw.pop("id")
    record_fields = {k: raw.pop(k) for k in list(raw) if k in _RECORD_FIELDS}
    if raw.get("kind") == "error" and "class" in raw:
        raw["error_class"] = raw.pop("class")
    try:
        outcome = _OUTCOME.validate_python(raw)
        return Record(case_id=case_id, outcome=outcome, **record_fields)
    except ValidationError as err:
        return problems_from(err, location)


def usual_shape(raw: dict[str, Any]) -> bool:
    """Whether ``_shape_problems`` finds nothing wrong with ``raw``, for the usual line
    alone (a non-empty id, a known kind, the fields of that kind; an answer's fact or
    text): False says nothing about any other line."""
    case_id, kind = raw.get("id"), raw.get("kind")
    if type(case_id) is not str or not case_id or type(kind) is not str:
        return False
    fields = _USUAL_KEYS.get(kind)
    return (
        fields is not None
        and raw.keys() <= fields
        and (kind != "answer" or raw.get("fact") is not None or raw.get("text") is not None)
    )


_USUAL_KEYS = {kind: frozenset(_COMMON_FIELDS | _KIND_FIELDS[kind]) for kind in KINDS}


_OUTCOME_FIELDS: dict[str, tuple[type[Answer | Abstain | Error], dict[str, Any]]] = {
    "answer": (Answer, {"kind": "answer", "fact": None, "text": None, "citations": ()}),
    "abstain": (Abstain, {"kind": "abstain", "reason": None, "text": None}),
    "error": (Error, {"kind": "error", "error_class": None, "message": None, "raw": None}),
}
_GIVEN_RECORD = shared_field_names(frozenset({"case_id", "outcome"}))


def _plain_record(raw: dict[str, Any]) -> Record | None:
    """The record of a line that passed ``_shape_problems`` and holds nothing but its id,
    its kind and text fields of that kind (the usual line), made without validating it
    again; None for any other line, which pydantic validates."""
    kind = raw["kind"]
    model, defaults = _OUTCOME_FIELDS[kind]
    values = dict(defaults)
    given = ["kind"]
    for key, value in raw.items():
        if key == "id" or key == "kind":
            continue
        if type(value) is not str or key == "citations":
            return None
        if key == "class":
            if "error_class" in raw:
                return None  # the slow path says which of the two is kept
            key = "error_class"
        if key not in values:
            return None
        values[key] = value
        given.append(key)
    outcome = checked_instance(model, values, shared_field_names(frozenset(given)))
    fields = {"case_id": raw["id"], "trial": 1, "outcome": outcome, "attempts": 1}
    fields |= {"latency_ms": None, "usage": None, "trace_id": None, "extra": {}}
    return checked_instance(Record, fields, _GIVEN_RECORD)


def plain_line(raw: dict[str, Any]) -> bool:
    """Whether ``_plain_record`` makes a record of ``raw`` (a line ``usual_shape``
    passed), told without making it: each field a text field of the line's kind (its id
    and kind aside), and not both ``class`` and ``error_class``."""
    return (
        raw.keys() <= _PLAIN_LINE_KEYS[raw["kind"]]
        and _TEXT.issuperset(map(type, raw.values()))
        and not ("class" in raw and "error_class" in raw)
    )


_PLAIN_LINE_KEYS = {
    kind: frozenset({"id", "class"} if kind == "error" else {"id"})
    | (defaults.keys() - {"citations"})
    for kind, (_, defaults) in _OUTCOME_FIELDS.items()
}
_TEXT = frozenset({str})


def parse_results(records: Iterable[tuple[Location, Any]], source: str) -> Results:
    """Results from located raw lines (iterated once); every problem in every line is
    reported at once."""
    parsed, locations = parse_located(records, parse_result_line, f"{source}: invalid results")
    return Results(tuple(parsed), tuple(locations), source)


def as_results(results: Results | Mapping[str, Outcome] | Iterable[Record]) -> Results:
    """Normalise the ways results can be given: ``Results``, id → outcome, or records."""
    if isinstance(results, Results):
        return results
    if isinstance(results, Mapping):
        return Results(tuple(Record(case_id=k, outcome=v) for k, v in results.items()))
    return Results(tuple(results))


def check_results(results: Results, case_ids: Iterable[str]) -> None:
    """Reject results for unknown cases, repeated (case, trial) pairs and trial numbers
    far beyond what the results hold, naming every id."""
    known = set(case_ids)
    unknown: dict[str, list[Location | None]] = {}
    seen: dict[tuple[str, int], list[Location | None]] = {}
    for i, record in enumerate(results.records):
        where = results.location_of(i)
        if record.case_id not in known:
            unknown.setdefault(record.case_id, []).append(where)
        seen.setdefault(record.key, []).append(where)
    if unknown:
        raise UnknownResultIdError(unknown)
    repeated: dict[str, list[Location | None]] = {}
    for (case_id, trial), places in seen.items():
        if len(places) > 1:
            label = case_id if trial == 1 else f"{case_id} (trial {trial})"
            repeated[label] = places
    if repeated:
        raise DuplicateResultError(repeated)
    check_trial_numbers(results)


CASE_TRIALS_FLOOR = 1_000_000
CASE_TRIALS_PER_RECORD = 100
"""Results may imply at most max(CASE_TRIALS_FLOOR, CASE_TRIALS_PER_RECORD × their
records) case-trials (the cases they name times their highest trial number)."""


def trials_allowed(records: int, cases: int) -> int:
    """The highest trial number ``records`` results over ``cases`` distinct cases may
    hold: never above ``MAX_TRIALS``, nor so high that the cases × trials they imply
    (each trial not recorded counted missing) far exceed the records."""
    budget = max(CASE_TRIALS_FLOOR, CASE_TRIALS_PER_RECORD * records)
    return min(MAX_TRIALS, max(1, budget // max(1, cases)))


class Trialled(Protocol):
    """A line that names a case and a trial: a record, or checks recorded for one."""

    @property
    def case_id(self) -> str: ...

    @property
    def trial(self) -> int: ...


def trials_beyond(results: Results | Sequence[Trialled]) -> tuple[int, int, list[int]]:
    """``(allowed, cases, beyond)``: the ``trials_allowed`` of ``results`` (the least it
    can be when every trial is within it, the cases then not counted: ``cases`` is 0), the
    distinct cases they name, and the indices of the lines whose trial is beyond
    ``allowed``. ``results`` are records, or any lines that each name a case and a trial
    (a composite results file's outcomes and recorded checks)."""
    records = results.records if isinstance(results, Results) else results
    least_allowed = trials_allowed(len(records), len(records))
    if max((r.trial for r in records), default=1) <= least_allowed:
        return least_allowed, 0, []  # within what any count of cases allows
    cases = len({r.case_id for r in records})
    allowed = trials_allowed(len(records), cases)
    return allowed, cases, [i for i, r in enumerate(records) if r.trial > allowed]


def check_trial_numbers(
    results: Results | Sequence[Trialled], locations: Sequence[Location | None] = ()
) -> None:
    """Reject trial numbers beyond ``trials_allowed`` (``TrialNumberError``, naming each
    case and trial, at its location when ``results`` or ``locations`` give it)."""
    if isinstance(results, Results):
        records: Sequence[Trialled] = results.records
        locations = results.locations
    else:
        records = results
    allowed, cases, beyond = trials_beyond(records)
    named: dict[str, list[Location | None]] = {}
    for i in beyond:
        record = records[i]
        label = f"{record.case_id} (trial {record.trial})"
        named.setdefault(label, []).append(locations[i] if locations else None)
    if named:
        raise TrialNumberError(named, allowed, len(records), cases)


def trial_gaps(results: Results) -> list[str]:
    """Warnings for trial numbers past a gap (trials 1-3 recorded, then one stray trial 50):
    each names the line, since the highest trial sets how many trials every case is
    scored over. Empty when the trials recorded are 1..K without a gap."""
    used = {r.trial for r in results.records}
    contiguous = 0
    while contiguous + 1 in used:
        contiguous += 1
    highest = max(used, default=0)
    out = []
    for i, record in enumerate(results.records):
        if record.trial > contiguous:
            where = results.location_of(i)
            prefix = f"{where}: " if where is not None else ""
            empty = (
                f"trial {contiguous + 1}"
                if contiguous + 2 == record.trial
                else f"trials {contiguous + 1}-{record.trial - 1}"
            )
            out.append(
                f"{prefix}{record.case_id} trial {record.trial}: no case has {empty}, so every "
                f"case is scored over {highest} trials and counts the empty ones as missing "
                "(fix the trial number, or declare the count with --trials)"
            )
    return out


def result_line(record: Record) -> dict[str, Any]:
    """The flat results-file form of a record (the inverse of ``parse_result_line``)."""
    line: dict[str, Any] = {"id": record.case_id}
    if record.trial != 1:
        line["trial"] = record.trial
    line.update(record.outcome.model_dump(mode="json", exclude_none=True, exclude_defaults=False))
    if isinstance(record.outcome, Answer) and not record.outcome.citations:
        line.pop("citations", None)
    return line
