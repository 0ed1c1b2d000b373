"""A stored run's case-trials counted on SQLite without a ``GROUP BY``: SQLite sorts to
group (most of a million-row count), so it gives each case-trial as one integer — its
case's position and what is counted of it — in one text, and numpy counts them by group
(or by case).

What is counted of a case-trial is what ``metrics._tally.SUMS`` names: the outcome's kind,
the stored judgment's status, whether it has labels and whether the record says if the
cache served it. ``assay.metrics._tally.tallies`` counts them, one row per key, from
the integers read here.

The records and the run grader's judgments are read apart (``RECORDS``, ``JUDGMENTS``),
each case-trial by its slot (position and trial), and put side by side by numpy
(``joined_values``): joining them in SQLite on case ids costs a lookup per case-trial.
Judgments stored before schema version 5 without a record have no position; a run with
any is read by the joined query (``PACKED``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.grading import kind_sql, pack, pack_sql, status_code_sql

# The outcome's kind code (stored beside the outcome since schema version 5; read off the
# outcome for records stored before) and the stored judgment's status code, generated from
# the status rule's codes (a missing kind is neither an error nor something else).
_KIND = kind_sql("rec.kind, json_extract(rec.outcome, '$.kind')", "x'00'")
_STATUS = status_code_sql("jd.status")
_LABELLED = "CASE WHEN jd.labels <> '[]' THEN 1 ELSE 0 END"
_NOTED = """CASE WHEN rec.extra LIKE '%"cache"%' THEN 1 ELSE 0 END"""
_PACKED = pack_sql(
    position="rec.position", kind=_KIND, status=_STATUS, labelled=_LABELLED, noted=_NOTED
)
# Each case-trial of the run's cases packed by the status rule's layout, in one
# comma-separated text (no row objects to make).
PACKED = f"""
SELECT COUNT(*), group_concat({_PACKED})
FROM records rec
LEFT JOIN judgments jd
  ON jd.run_id = rec.run_id AND jd.case_id = rec.case_id AND jd.trial = rec.trial
     AND jd.grader = :grader AND jd.grader_version = :version
WHERE rec.run_id = :run AND rec.trial BETWEEN 1 AND :trials
  AND rec.position >= 0 AND rec.position < :cases
"""
# Each of the run's case-trials of its cases: its slot (position * trials + trial - 1)
# * 8 + kind * 2 + noted; and, read in the same statement, the number of the run's
# records of those trials (or of a trial that is not a whole number) at any position but
# one past the last case's (where the store puts a record of a case the run does not
# hold): one at no case's position is damaged. (A record of a trial past the run's count
# is not of the run's case-trials, and is left out as the rows leave it out.)
RECORDS = f"""
SELECT COUNT(*), group_concat(((rec.position * :trials + rec.trial - 1) * 4 + ({_KIND})) * 2
    + (CASE WHEN rec.extra LIKE '%"cache"%' THEN 1 ELSE 0 END)),
    (SELECT COUNT(*) FROM records WHERE run_id = :run AND position IS NOT :cases
       AND (trial BETWEEN 1 AND :trials OR typeof(trial) <> 'integer'))
FROM records rec
WHERE rec.run_id = :run AND rec.trial BETWEEN 1 AND :trials
  AND rec.position >= 0 AND rec.position < :cases
"""
# The run grader's judgments without a position, and each of those of the run's
# case-trials: its slot * 16 + status * 2 + labelled.
JUDGMENTS = f"""
SELECT COUNT(*) - COUNT(jd.position), group_concat(
    CASE WHEN jd.position >= 0 AND jd.position < :cases
    THEN ((jd.position * :trials + jd.trial - 1) * 8 + ({_STATUS})) * 2
        + (CASE WHEN jd.labels <> '[]' THEN 1 ELSE 0 END) END)
FROM judgments jd
WHERE jd.run_id = :run AND jd.grader = :grader AND jd.grader_version = :version
  AND jd.trial BETWEEN 1 AND :trials
"""
# More case-trials than this make a text too long for one value: counted by GROUP BY.
MOST = 50_000_000


def packed_values(count: int, packed: str | None) -> Any:
    """The ``count`` integers of a packed text, as a numpy array."""
    values = np.fromstring(packed or "", dtype=np.int64, sep=",")
    if len(values) != count:
        raise ValueError(f"read {len(values)} of {count} counted case-trials")
    return values


def joined_values(
    count: int, recorded: str | None, judged: str | None, trials: int, cases: int
) -> Any:
    """``PACKED``'s integers from ``RECORDS``' ``count`` and text and ``JUDGMENTS``' text:
    each record beside the judgment in its slot (no judgment: status none)."""
    values = packed_values(count, recorded)
    slots = values >> 3
    if len(slots) and np.bincount(slots, minlength=cases * trials).max() > 1:
        raise ValueError("two records in the slot of one case-trial")
    verdicts = np.zeros(cases * trials, dtype=np.int64)
    found = np.fromstring(judged or "", dtype=np.int64, sep=",")
    verdicts[found >> 4] = found & 15
    verdict = verdicts[slots]
    return pack(slots // trials, (values >> 1) & 3, verdict >> 1, verdict & 1, values & 1)
