"""Whether a run's records' outcomes read, for the commands that count a run without
reading its records one by one (``gate``, ``compare``): each outcome must be JSON whose
``kind`` is the kind stored beside it, the one these commands count. A record whose
outcome does not read is a damaged row there as in ``report``, which reads every record.

The check is one pass of the database over the run's outcomes, the first damaged one
then found and named. What the outcome holds besides its kind (an answer's text, its
citations) is not looked at here: these commands do not read it, and ``report`` and
``export`` name it when it is wrong.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from assay.outcomes import OUTCOME_ADAPTER
from assay.store import DamagedRow, record_damage, shown

# The number of the run's records whose outcome's kind is not the kind stored beside it
# (records stored before schema version 5 have none beside it). An outcome that is not
# JSON fails the query (SQLite's json_extract, PostgreSQL's cast): the rows are then
# looked at one by one.
_UNREAD = {
    "sqlite": """
SELECT COUNT(*) FROM records
WHERE run_id = :run
  AND json_extract(outcome, '$.kind') IS NOT COALESCE(kind, json_extract(outcome, '$.kind'))
""",
    "postgresql": """
SELECT COUNT(*) FROM records
WHERE run_id = :run AND (CAST(outcome AS json) ->> 'kind') IS DISTINCT FROM
    COALESCE(kind, CAST(outcome AS json) ->> 'kind')
""",
}
_ROWS = """
SELECT case_id, trial, outcome, kind FROM records WHERE run_id = :run
ORDER BY position, trial
"""


def outcome_damage(engine: Any, run_id: str) -> DamagedRow | None:
    """The first record of run ``run_id`` (in dataset order) whose outcome is not JSON of
    the kind stored beside it; None when every outcome is, or the database cannot tell."""
    query = _UNREAD.get(engine.dialect.name)
    if query is None:
        return None
    params = {"run": run_id}
    try:
        with engine.connect() as conn:
            if not conn.execute(text(query), params).scalar():
                return None
    except DBAPIError:
        pass  # an outcome that is not JSON
    with engine.connect() as conn:
        for case_id, trial, outcome, kind in conn.execute(text(_ROWS), params):
            found = _damage(case_id, trial, outcome, kind)
            if found is not None:
                return found.of_run(run_id)
    return None


def _damage(case_id: str, trial: int, outcome: Any, kind: Any) -> DamagedRow | None:
    """The damage of one record's outcome, named as ``report`` names it; None when it
    reads and is of the kind stored beside it."""
    row = {"case_id": case_id, "trial": trial, "outcome": outcome, "extra": None}
    try:
        read = OUTCOME_ADAPTER.validate_json(outcome)
    except (ValueError, TypeError) as err:
        return record_damage(row, err)
    if kind is not None and read.kind != kind:
        what = f"{shown(outcome)} is not of the kind stored beside it ({shown(kind)})"
        return DamagedRow("records", "outcome", what, case=case_id, trial=trial)
    return None
