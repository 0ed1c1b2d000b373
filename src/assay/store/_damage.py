"""A stored row assay cannot read, named: the run, the table, the case and trial (or the
item of a run's cases), the column, and what is wrong with the value.

A row is decoded at full speed and nothing is checked twice: only once decoding has failed
is the row looked at again, column by column, to find the culprit (``record_damage``,
``judgment_damage``...). ``DamagedRow`` is a ``ValueError``, so code that already turns
a row that does not parse into a ``StoreError`` keeps doing so; ``row_failure`` is the
message that names it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from assay.errors import StoreError
from assay.metrics import TrialPolicy
from assay.outcomes import OUTCOME_ADAPTER

_NOUNS = {
    "records": "a record",
    "judgments": "a judgment",
    "spans": "a span",
    "runs": "a run",
    "case_index": "a run's case index",
}

ROW_ADVICE = (
    "Nothing was written to it. Restore the store from a copy, or keep it as it is for "
    "inspection and record new runs elsewhere with --store (docs/store.md, "
    '"A damaged row", shows how to look at that row)'
)


class DamagedRow(ValueError):
    """A stored row that cannot be read as what it stores, and where it is."""

    def __init__(
        self,
        table: str,
        column: str,
        problem: str,
        *,
        run: str | None = None,
        case: str | None = None,
        trial: int | None = None,
        item: int | None = None,
        span: str | None = None,
    ) -> None:
        """``item``: the position (from 1) of an item of the run's ``cases`` snapshot."""
        self.table = table
        self.column = column
        self.problem = problem
        self.run = run
        self.case = case
        self.trial = trial
        self.item = item
        self.span = span
        super().__init__(f"{self.place()}: {problem}")

    def of_run(self, run_id: str) -> DamagedRow:
        """This damage, placed in run ``run_id`` when it was not placed yet."""
        if self.run is None:
            self.run = run_id
            self.args = (f"{self.place()}: {self.problem}",)
        return self

    def place(self) -> str:
        """Where the row is, e.g. ``run R, case "C1", trial 2, column outcome``."""
        parts = [f"run {self.run}"] if self.run is not None else []
        if self.span is not None:
            parts.append(f"span {_quoted(self.span)}")
        if self.item is not None:
            parts.append(f"column {self.column}, item {self.item}")
            if self.case is not None:
                parts.append(f"case {_quoted(self.case)}")
            return ", ".join(parts)
        if self.case is not None:
            parts.append(f"case {_quoted(self.case)}")
        if self.trial is not None:
            parts.append(f"trial {self.trial}")
        parts.append(f"column {self.column}")
        return ", ".join(parts)


def row_failure(err: DamagedRow, url: str) -> StoreError:
    """The ``StoreError`` of damaged row ``err`` in the store at ``url``."""
    noun = _NOUNS.get(err.table, f"a row of {err.table}")
    return StoreError(
        f"the store {url} holds {noun} assay cannot read: {err.place()}: {err.problem}; it "
        f"was changed outside assay or is damaged. {ROW_ADVICE}",
        "damaged",
    )


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def problem(err: BaseException) -> str:
    """What is wrong, in one line: a model's first validation error, a JSON error."""
    from pydantic import ValidationError

    if isinstance(err, ValidationError):
        first = err.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    if isinstance(err, json.JSONDecodeError):
        return f"not JSON ({err.msg} at character {err.pos})"
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def shown(value: Any) -> str:
    """A stored value as the message shows it: its repr, cut to about 60 characters (a
    long text is cut before its repr is made: a column may hold megabytes)."""
    text = repr(value[:60] if type(value) is str else value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def culprit(
    values: Mapping[str, Any],
    checks: Iterable[tuple[str, Callable[[Any], Any]]],
    err: BaseException,
    columns: Mapping[str, str] | None = None,
) -> tuple[str, str]:
    """(column, problem) of a row that failed with ``err``: the first column whose own
    ``check`` refuses its value, else the column ``err``'s first validation error names
    (through ``columns``, a model field to its column, when they differ)."""
    from pydantic import ValidationError

    for column, check in checks:
        try:
            check(values[column])
        except (ValueError, TypeError) as found:
            return column, f"{shown(values[column])} is {_described(found)}"
    if isinstance(err, ValidationError):
        first = err.errors(include_url=False)[0]
        loc = [str(part) for part in first["loc"]]
        field = ".".join(loc)
        column = (columns or {}).get(field) or (columns or {}).get(loc[0] if loc else "", "")
        column = column or (loc[0] if loc else "?")
        value = values.get(column, first.get("input"))
        return column, f"{shown(value)}: {first['msg']}"
    return "?", problem(err)


def _described(err: BaseException) -> str:
    if isinstance(err, json.JSONDecodeError):
        return problem(err)
    return f"not valid: {problem(err)}"


# -- the culprit of each kind of row -----------------------------------------------------


def _json_of(kind: type) -> Callable[[Any], Any]:
    """A check that a column holds JSON text of ``kind`` (or nothing)."""

    def check(value: Any) -> None:
        if value is None or value == "":
            return
        if type(value) is not str:
            raise ValueError("not JSON text")
        if type(json.loads(value)) is not kind:
            raise ValueError(f"not a JSON {'object' if kind is dict else 'array'}")

    return check


def _labels(value: Any) -> None:
    _json_of(list)(value)
    if value and any(type(label) is not str for label in json.loads(value)):
        raise ValueError("not a JSON array of texts")


def _outcome(value: Any) -> None:

    OUTCOME_ADAPTER.validate_json(value)


def _time(value: Any) -> None:
    from datetime import datetime

    if value is not None:
        datetime.fromisoformat(value)


def trial_policy_of(value: Any) -> None:
    """Check a run's stored ``trial_policy``: none stated, or one ``TrialPolicy`` reads."""

    if type(value) is not str:
        raise ValueError("not a text")
    if value not in ("", "per-trial"):
        TrialPolicy.parse(value)


def _trial(row: Mapping[str, Any]) -> int | None:
    trial = row.get("trial")
    return trial if type(trial) is int else None


def _case(row: Mapping[str, Any]) -> str | None:
    case = row.get("case_id")
    return case if type(case) is str else None


def record_damage(row: Mapping[str, Any], err: BaseException) -> DamagedRow:
    """The damage of a ``records`` row (its columns by name) whose record failed with
    ``err``."""
    checks = (("outcome", _outcome), ("extra", _json_of(dict)))
    usage = {"usage.input_tokens": "input_tokens", "usage.output_tokens": "output_tokens"}
    column, what = culprit(row, checks, err, usage)
    return DamagedRow("records", column, what, case=_case(row), trial=_trial(row))


def judgment_damage(row: Mapping[str, Any], err: BaseException) -> DamagedRow:
    """The damage of a ``judgments`` row whose judgment failed with ``err``."""
    column, what = culprit(row, (("labels", _labels),), err)
    return DamagedRow("judgments", column, what, case=_case(row), trial=_trial(row))


def run_damage(row: Mapping[str, Any], err: BaseException) -> DamagedRow:
    """The damage of a ``runs`` row whose run information failed with ``err``."""
    checks: list[tuple[str, Callable[[Any], Any]]] = [("started_at", _time), ("ended_at", _time)]
    checks.append(("trial_policy", trial_policy_of))
    checks += [(c, _json_of(dict)) for c in ("suite", "target", "packages", "metadata")]
    checks += [("graders", _json_of(list)), ("summary", _json_of(dict))]
    column, what = culprit(row, [c for c in checks if c[0] in row], err)
    run = row.get("id")
    return DamagedRow("runs", column, what, run=run if type(run) is str else None)


def span_damage(row: Mapping[str, Any], err: BaseException) -> DamagedRow:
    """The damage of a ``spans`` row whose span failed with ``err``."""
    column, what = culprit(row, (("attributes", _json_of(dict)),), err)
    run, span = row.get("run_id"), row.get("span_id")
    return DamagedRow(
        "spans",
        column,
        what,
        run=run if type(run) is str else None,
        span=span if type(span) is str else None,
        case=_case(row),
        trial=_trial(row),
    )


def item_damage(position: int, raw: Any, err: BaseException) -> DamagedRow:
    """The damage of the item at ``position`` (from 0) of a run's ``cases`` snapshot,
    ``raw`` as parsed (None when it did not parse), that failed with ``err``."""
    case = raw.get("id") if type(raw) is dict else None
    return DamagedRow(
        "runs",
        "cases",
        problem(err),
        item=position + 1,
        case=case if type(case) is str else None,
    )
