"""A run's case index: what its summary groups the cases by, stored beside the run so
that the summary is counted without reading (and parsing) the cases' snapshot, hundreds
of megabytes for a million cases.

One row per run (schema version 4): the distinct (slice, synthetic, split) groups in the
order their first case comes, each case's index into them in dataset order, the case ids
in dataset order and the cases' source revisions (sorted), each as JSON text; since
version 6, the cases' content hashes in dataset order too (None for runs stored before).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from assay.cases import Case
from assay.store._damage import DamagedRow, problem, shown
from assay.store._dump import dump
from assay.store._schema import case_index

Group = tuple[str, bool, str]  # slice, synthetic, split


@dataclass(frozen=True, slots=True)
class CaseIndex:
    """A run's cases as its summary groups them."""

    groups: list[Group]
    codes: list[int]
    revisions: list[str]


def case_index_row(run_id: str, cases: Sequence[Case], hashes: Sequence[str]) -> dict[str, Any]:
    """The ``case_index`` row of run ``run_id`` running ``cases``, in order, whose content
    hashes (``case_hash``) are ``hashes``."""
    code: dict[Group, int] = {}
    codes = [code.setdefault((c.slice, c.synthetic, c.split), len(code)) for c in cases]
    return {
        "run_id": run_id,
        "groups": dump([list(g) for g in code]),
        "codes": dump(codes),
        "ids": dump([c.id for c in cases]),
        "revisions": dump(sorted({c.source_revision for c in cases if c.source_revision})),
        "hashes": dump(list(hashes)),
    }


def read_case_index(conn: Connection, run_id: str) -> CaseIndex | None:
    """Run ``run_id``'s case index without its case ids, or None for a run stored before
    the index existed."""
    import orjson  # loaded only where an index is read: every command opens a store

    columns = (case_index.c.groups, case_index.c.codes, case_index.c.revisions)
    row = conn.execute(select(*columns).where(case_index.c.run_id == run_id)).first()
    if row is None:
        return None
    stored = dict(zip(("groups", "codes", "revisions"), row, strict=True))
    try:
        found = [orjson.loads(value) for value in row]
    except (ValueError, TypeError) as err:
        raise _damage(run_id, stored, err) from None
    if not all(_HOLDS[column](value) for column, value in zip(stored, found, strict=True)):
        raise _damage(run_id, stored, TypeError("not of the types it holds"))
    groups = [(g[0], g[1], g[2]) for g in found[0]]
    codes: list[int] = found[1]
    if codes and (min(codes) < 0 or max(codes) >= len(groups)):
        problem = f"a code past the {len(groups)} groups"
        raise DamagedRow("case_index", "codes", problem, run=run_id)
    return CaseIndex(groups=groups, codes=codes, revisions=found[2])


def _groups(items: Any) -> bool:
    return type(items) is list and all(
        type(g) is list
        and len(g) == 3
        and type(g[0]) is str
        and type(g[1]) is bool
        and type(g[2]) is str
        for g in items
    )


def _whole(items: Any) -> bool:
    return type(items) is list and set(map(type, items)) <= {int}


def _texts(items: Any) -> bool:
    return type(items) is list and set(map(type, items)) <= {str}


# What each column's JSON holds, checked in full: a value of another type would be read
# as a group it is not (a number as a slice) or fail further on.
_HOLDS: dict[str, Callable[[Any], bool]] = {
    "groups": _groups,
    "codes": _whole,
    "revisions": _texts,
    "ids": _texts,
    "hashes": _texts,
}
_NAMED = {
    "groups": "[slice, synthetic, split] groups (a text, true or false, a text)",
    "codes": "whole numbers",
    "revisions": "texts",
    "ids": "texts",
    "hashes": "texts",
}


def read_case_ids(conn: Connection, run_id: str, count: int) -> list[str]:
    """The case ids of run ``run_id``'s case index, in dataset order, one for each of its
    ``count`` cases (the index's codes); any other number raises ``DamagedRow``."""
    import orjson

    found = conn.execute(select(case_index.c.ids).where(case_index.c.run_id == run_id)).scalar_one()
    try:
        ids: list[str] = orjson.loads(found)
    except (ValueError, TypeError) as err:
        raise _damage(run_id, {"ids": found}, err) from None
    if not _HOLDS["ids"](ids):
        raise _damage(run_id, {"ids": found}, TypeError("not texts"))
    if len(ids) != count:
        raise DamagedRow("case_index", "ids", f"{len(ids)} ids for {count} cases", run=run_id)
    return ids


def read_case_hashes(conn: Connection, run_id: str, count: int) -> list[str] | None:
    """The content hashes of run ``run_id``'s ``count`` cases in dataset order, or None
    for a run stored before they were kept; any other number of them, or one that is not
    a text, raises ``DamagedRow``."""
    import orjson

    found = conn.execute(
        select(case_index.c.hashes).where(case_index.c.run_id == run_id)
    ).scalar_one_or_none()
    if found is None:
        return None
    try:
        hashes: list[str] = orjson.loads(found)
    except (ValueError, TypeError) as err:
        raise _damage(run_id, {"hashes": found}, err) from None
    if not _HOLDS["hashes"](hashes):
        raise _damage(run_id, {"hashes": found}, TypeError("not texts"))
    if len(hashes) != count:
        problem = f"{len(hashes)} hashes for {count} cases"
        raise DamagedRow("case_index", "hashes", problem, run=run_id)
    return hashes


def _damage(run_id: str, columns: dict[str, Any], err: BaseException) -> DamagedRow:
    """The damage of run ``run_id``'s case index, whose ``columns`` failed with ``err``:
    the first that is not a JSON array of the kind it holds."""
    import orjson

    for column, value in columns.items():
        try:
            items = orjson.loads(value)
        except (orjson.JSONDecodeError, TypeError) as found:
            return DamagedRow(
                "case_index", column, f"{shown(value)} is not JSON ({found})", run=run_id
            )
        if not _HOLDS[column](items):
            what = f"not a JSON array of {_NAMED[column]}"
            return DamagedRow("case_index", column, f"{shown(value)} is {what}", run=run_id)
    return DamagedRow("case_index", next(iter(columns)), problem(err), run=run_id)
