"""Case-trials counted by numpy from one integer each: its key's position (its case's, or
its group's) and what is counted of it, packed by the status rule's ``LAYOUT``. A stored
run's SQL gives these integers in one text (``assay.runs._tally``); the library's
``summarize`` makes them from plain records. The codes and the status they are counted
under are the status rule's (``assay.grading._status_rule``); what each case-trial adds
to each sum is ``case_trial_sums``, and every vectorised sum here is read off its table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.grading import (
    ANSWER_KIND,
    COUNTED_STATUS,
    ERROR,
    ERROR_KIND,
    FAILED,
    LOWS,
    MISSING,
    NO_KIND,
    NONE,
    OTHER,
    PASSED,
    UNGRADED,
    UNJUDGED,
    field_of,
    low_of,
    pack,
    status_code,
)

# Up to this many (key, low byte) cells, the case-trials are counted by one ``bincount``
# of both and the sums read off the cells, instead of one ``bincount`` per sum.
_CELLS = 1 << 22


def tallies(
    values: Any, codes: list[int] | None, size: int, absent: str | None
) -> list[tuple[int, ...]] | None:
    """One row for each key with case-trials: the key, then each of ``SUMS``, from the
    case-trials' integers as ``PACKED`` gives them (a numpy array): keyed by the group in
    ``codes`` of each case-trial's position, or by position when ``codes`` is None;
    ``size`` keys. None when ``absent`` is None and a recorded answer or abstention has
    no judgment (it must be graded)."""
    columns = sum_columns(values, codes, size, absent)
    if columns is None:
        return None
    return [(key, *row) for key, row in enumerate(zip(*columns, strict=True)) if row[0]]


def cell_tallies(
    cells: Sequence[Sequence[Any]], *, size: int, absent: str | None
) -> list[tuple[int, ...]]:
    """``tallies``' rows from case-trials already counted by (key, low byte): each of
    ``cells`` is (key, low byte, how many), as a database's ``GROUP BY`` gives them. The
    rows are given even when some case-trial needs grading (``absent`` None): its sum
    ``unjudged`` says so."""
    if not cells:
        return []
    keys, lows, counts = (np.asarray(column, dtype=np.int64) for column in zip(*cells, strict=True))
    table = sum_table(absent)
    columns = [
        np.bincount(keys, weights=counts * table[lows, j], minlength=size).astype(np.int64)
        for j in range(len(SUMS))
    ]
    return [
        (key, *row)
        for key, row in enumerate(zip(*(c.tolist() for c in columns), strict=True))
        if row[0]
    ]


def sum_columns(
    values: Any, codes: list[int] | None, size: int, absent: str | None
) -> list[list[int]] | None:
    """``tallies`` as columns: each of ``SUMS`` for every key, keys
    with no case-trial included (their sums 0)."""
    positions = field_of(values, "position")
    keys = positions if codes is None else code_array(codes, size)[positions]
    if size * LOWS <= _CELLS:
        # what is summed depends on the low byte alone: each sum is the cells of the low
        # bytes it holds
        cells = np.bincount(
            pack(keys.astype(np.int64), 0, 0) + low_of(values), minlength=size * LOWS
        )
        cells = cells.reshape(size, LOWS)
        table = sum_table(absent)
        if absent is None and cells[:, table[:, SUMS.index("unjudged")] == 1].any():
            return None
        columns: list[list[int]] = (cells @ table).T.tolist()
        return columns
    sums, unjudged = _masks(values, absent)
    if absent is None and unjudged.any():
        return None
    return [np.bincount(keys[mask], minlength=size).tolist() for mask in sums]


SUMS = (
    "recorded",
    "passed",
    "failed",
    "error",
    "ungraded",
    "judged_missing",
    "unjudged",
    "answered",
    "correct",
    "errored",
    "labelled",
    "cache_notes",
    "answered_unknown",
)
"""What is summed of case-trials, in the order of ``tallies``' rows (after the key)."""


def case_trial_sums(low: int, absent: str | None) -> tuple[int, ...]:
    """What one recorded case-trial adds to each of ``SUMS``, from its packed low byte
    (``pack(0, kind, status, labelled, noted)``): its status is the status rule's
    (``COUNTED_STATUS``), and one with no stored status is counted as ``absent`` (None:
    it needs grading)."""
    kind, status, labelled, noted = (
        field_of(low, name) for name in ("kind", "status", "labelled", "noted")
    )
    counted = COUNTED_STATUS[kind][status if status <= UNJUDGED else OTHER]
    if counted == NONE:
        counted = UNJUDGED if absent is None else status_code(absent)
    answered = kind == ANSWER_KIND
    return (
        1,
        counted == PASSED,
        counted == FAILED,
        counted == ERROR,
        counted == UNGRADED,
        counted == MISSING,
        counted == UNJUDGED,
        answered,
        answered and counted == PASSED,
        kind == ERROR_KIND,
        kind not in (ERROR_KIND, NO_KIND) and labelled == 1,
        noted,
        answered and counted in (ERROR, MISSING, UNGRADED),
    )


_TABLES: dict[str | None, Any] = {}


def sum_table(absent: str | None) -> Any:
    """``case_trial_sums`` of every low byte, as a ``LOWS`` × ``len(SUMS)`` numpy array of
    0 and 1."""
    table = _TABLES.get(absent)
    if table is None:
        rows = [case_trial_sums(low, absent) for low in range(LOWS)]
        table = _TABLES[absent] = np.array(rows, dtype=np.int64)
    return table


def _masks(values: Any, absent: str | None) -> tuple[list[Any], Any]:
    """Which of the case-trials ``values`` each of ``SUMS`` counts, in its order (by
    ``sum_table``), and which must be graded when ``absent`` is None."""
    low = low_of(values)
    table = sum_table(absent).astype(bool)
    sums = [table[:, j][low] for j in range(len(SUMS))]
    return sums, sums[SUMS.index("unjudged")]


def code_array(codes: list[int], size: int) -> Any:
    """``codes`` (each below ``size``) as a numpy array."""
    if size <= 256:
        return np.frombuffer(bytes(codes), dtype=np.uint8)
    return np.asarray(codes, dtype=np.int64)


def group_extent(codes: list[int], size: int) -> tuple[list[int], list[int]]:
    """The position of each group's first case and its number of cases, from each case's
    group in ``codes`` (``size`` groups)."""
    array = code_array(codes, size)
    sizes = np.bincount(array, minlength=size)
    if size <= 256:  # a byte each: found by memchr
        packed = array.tobytes()
        return [packed.find(bytes([c])) for c in range(size)], sizes.tolist()
    first = np.full(size, -1, dtype=np.int64)
    present, found = np.unique(array, return_index=True)
    first[present] = found
    return first.tolist(), sizes.tolist()
