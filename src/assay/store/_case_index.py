"""A run's case index: what its summary groups the cases by, stored beside the run so
that the summary is counted without reading (and parsing) the cases' snapshot, hundreds
of megabytes for a million cases.

One row per run (schema version 4): the distinct (slice, synthetic, split) groups in the
order their first case comes, each case's index into them in dataset order, the case ids
in dataset order and the cases' source revisions (sorted), each as JSON text; since
version 6, the cases' content hashes in dataset order too (None for runs stored before).
"""

from __future__ import annotations

from collections.abc import Sequence
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
    try:
        groups = [(str(g[0]), bool(g[1]), str(g[2])) for g in orjson.loads(row[0])]
        codes = orjson.loads(row[1])
        if any(type(c) is not int for c in codes):
            raise TypeError("not whole numbers")
        index = CaseIndex(groups=groups, codes=codes, revisions=orjson.loads(row[2]))
    except (ValueError, TypeError, IndexError, KeyError) as err:
        raise _damage(
            run_id, dict(zip(("groups", "codes", "revisions"), row, strict=True)), err
        ) from None
    if codes and (min(codes) < 0 or max(codes) >= len(groups)):
        problem = f"a code past the {len(groups)} groups"
        raise DamagedRow("case_index", "codes", problem, run=run_id)
    return index


def read_case_ids(conn: Connection, run_id: str, count: int) -> list[str]:
    """The case ids of run ``run_id``'s case index, in dataset order, one for each of its
    ``count`` cases (the index's codes); any other number raises ``DamagedRow``."""
    import orjson

    found = conn.execute(select(case_index.c.ids).where(case_index.c.run_id == run_id)).scalar_one()
    try:
        ids = [str(i) for i in orjson.loads(found)]
    except (ValueError, TypeError) as err:
        raise _damage(run_id, {"ids": found}, err) from None
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
        hashes = orjson.loads(found)
    except ValueError as err:
        raise _damage(run_id, {"hashes": found}, err) from None
    if type(hashes) is not list or any(type(h) is not str for h in hashes):
        raise _damage(run_id, {"hashes": found}, TypeError("not texts"))
    if len(hashes) != count:
        problem = f"{len(hashes)} hashes for {count} cases"
        raise DamagedRow("case_index", "hashes", problem, run=run_id)
    return hashes


def _damage(run_id: str, columns: dict[str, Any], err: BaseException) -> DamagedRow:
    """The damage of run ``run_id``'s case index, whose ``columns`` failed with ``err``:
    the first that is not a JSON array of the kind it holds."""
    import orjson

    kinds = {"groups": list, "codes": int, "revisions": str, "ids": str, "hashes": str}
    named = {list: "[slice, synthetic, split] groups", int: "whole numbers", str: "texts"}
    for column, value in columns.items():
        try:
            items = orjson.loads(value)
        except (orjson.JSONDecodeError, TypeError) as found:
            return DamagedRow(
                "case_index", column, f"{shown(value)} is not JSON ({found})", run=run_id
            )
        if type(items) is not list or any(type(i) is not kinds[column] for i in items):
            what = f"not a JSON array of {named[kinds[column]]}"
            return DamagedRow("case_index", column, f"{shown(value)} is {what}", run=run_id)
        if column == "groups" and any(len(g) != 3 for g in items):
            what = "not a JSON array of [slice, synthetic, split] groups"
            return DamagedRow("case_index", column, f"{shown(value)} is {what}", run=run_id)
    return DamagedRow("case_index", next(iter(columns)), problem(err), run=run_id)
