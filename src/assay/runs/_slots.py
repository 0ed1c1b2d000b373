"""A run's record or judgment whose ``trial`` or ``position`` is not a whole number
(SQLite keeps a fraction or a text in an integer column; PostgreSQL's typed columns cannot
hold one), or a record at the position of another case, named once counting the run's
case-trials failed on it; a record of a trial outside the run's, named before counting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from assay.store import DamagedRow, guard_call, row_failure, shown

if TYPE_CHECKING:
    from assay.store import RunInfo, RunStore

# The first such row of each table, in dataset order (a judgment's position may be NULL:
# stored before schema version 5).
_FIRST = """
SELECT case_id, trial, position FROM {table}
WHERE run_id = :run AND (typeof(trial) <> 'integer'
                         OR typeof(position) NOT IN ('integer', {absent}))
ORDER BY position, trial LIMIT 1
"""


def slot_damage(conn: Any, run_id: str) -> DamagedRow | None:
    """The first record, then judgment, of run ``run_id`` whose trial or position is not a
    whole number; None when there is none or the store is not SQLite."""
    if conn.dialect.name != "sqlite":
        return None
    for table, absent in (("records", "'integer'"), ("judgments", "'null'")):
        found = conn.execute(text(_FIRST.format(table=table, absent=absent)), {"run": run_id})
        row = found.first()
        if row is None:
            continue
        case_id, trial, position = row
        column, value = ("trial", trial) if type(trial) is not int else ("position", position)
        what = f"{shown(value)} is not a whole number"
        case = case_id if type(case_id) is str else None
        return DamagedRow(table, column, what, run=run_id, case=case,
                          trial=trial if type(trial) is int else None)  # fmt: skip
    return None


# The first record, in dataset order, of a trial outside the run's 1 to ``trials``: every
# count of the run leaves it out, so it is named instead (a trial that is not a whole
# number is ``slot_damage``'s).
_PAST = """
SELECT case_id, trial FROM records
WHERE run_id = :run AND (trial < 1 OR trial > :trials){whole}
ORDER BY position, trial LIMIT 1
"""


def trial_damage(conn: Any, run_id: str, trials: int) -> DamagedRow | None:
    """The first record of run ``run_id`` whose trial is a whole number outside 1 to
    ``trials`` (written by hand or through an older assay's ``add_records``); None when
    there is none."""
    whole = " AND typeof(trial) = 'integer'" if conn.dialect.name == "sqlite" else ""
    found = conn.execute(text(_PAST.format(whole=whole)), {"run": run_id, "trials": trials})
    row = found.first()
    if row is None:
        return None
    case_id, trial = row
    what = f"{shown(trial)} is outside the run's trials, 1 to {trials}"
    case = case_id if type(case_id) is str else None
    return DamagedRow("records", "trial", what, run=run_id, case=case, trial=trial)


def check_trials(store: RunStore, info: RunInfo) -> None:
    """Raise the ``StoreError`` that names run ``info``'s first record of a trial outside
    its trials, if it has one."""

    def first() -> DamagedRow | None:
        with store.engine.connect() as conn:
            return trial_damage(conn, info.id, info.trials)

    damage = guard_call(store.url, first)
    if damage is not None:
        raise row_failure(damage, store.url)


_PLACES = """
SELECT case_id, trial, position FROM records
WHERE run_id = :run AND trial BETWEEN 1 AND :trials ORDER BY position, trial
"""


def misplaced_damage(conn: Any, run_id: str, ids: list[str], trials: int) -> DamagedRow | None:
    """The first record of run ``run_id`` (of ``trials`` trials) whose position is not
    that of its case among the run's case ``ids``; None when there is none."""
    for case_id, trial, position in conn.execute(text(_PLACES), {"run": run_id, "trials": trials}):
        if type(case_id) is not str:
            what = f"{shown(case_id)} is not a text"
            return DamagedRow("records", "case_id", what, run=run_id, trial=trial)
        if position == len(ids) or (0 <= position < len(ids) and ids[position] == case_id):
            continue  # one past the last: where the store puts a case the run does not hold
        there = (
            f"the position of case {ids[position]!r}"
            if 0 <= position < len(ids)
            else f"the position of none of the run's {len(ids)} cases"
        )
        what = f"{shown(position)} is {there}"
        return DamagedRow("records", "position", what, run=run_id, case=case_id, trial=trial)
    return None


# The number of the run's records of its trials (or of a trial that is not a whole number)
# at no case's position (not at the one the store gives a case the run does not hold):
# those a count by slot would leave out.
_OUTSIDE = {
    "sqlite": """
SELECT COUNT(*) FROM records
WHERE run_id = :run AND position IS NOT :cases
  AND (trial BETWEEN 1 AND :trials OR typeof(trial) <> 'integer')
  AND NOT (position >= 0 AND position < :cases AND typeof(trial) = 'integer')
""",
    "postgresql": """
SELECT COUNT(*) FROM records
WHERE run_id = :run AND position <> :cases AND trial BETWEEN 1 AND :trials
  AND NOT (position >= 0 AND position < :cases)
""",
}


def outside_count(conn: Any, run_id: str, cases: int, trials: int) -> int:
    """How many of run ``run_id``'s records of its ``trials`` trials are at none of its
    ``cases``' positions (each one is damaged)."""
    query = _OUTSIDE.get(conn.dialect.name)
    if query is None:
        return 0
    params = {"run": run_id, "cases": cases, "trials": trials}
    return int(conn.execute(text(query), params).scalar() or 0)
