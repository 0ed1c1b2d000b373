"""Case-trials counted by numpy from one integer each: its key's position (its case's, or
its group's) and what is counted of it, packed as ``position * 256 + kind * 64 + status
* 4 + labelled * 2 + noted``. A stored run's SQL gives these integers in one text
(``assay.stored._tally``); the library's ``summarize`` makes them from plain records. The
kinds' and statuses' codes are ``assay.grading._codes``'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.grading._codes import (
    ANSWER_KIND,
    ERROR,
    ERROR_KIND,
    FAILED,
    MISSING,
    NO_KIND,
    NONE,
    PASSED,
    UNGRADED,
    UNJUDGED,
)

# Up to this many (key, low byte) cells, the case-trials are counted by one ``bincount``
# of both and the sums read off the cells, instead of one ``bincount`` per sum.
_CELLS = 1 << 22


def tallies(
    values: Any, codes: list[int] | None, size: int, absent: str | None
) -> list[tuple[int, ...]] | None:
    """The rows of ``_summary._COUNTED`` (key, then its sums) from the case-trials'
    integers as ``PACKED`` gives them (a numpy array): keyed by the group in ``codes`` of
    each case-trial's position, or by position when ``codes`` is None; ``size`` keys. None
    when ``absent`` is None and a recorded answer or abstention has no judgment (it must
    be graded)."""
    columns = sum_columns(values, codes, size, absent)
    if columns is None:
        return None
    return [(key, *row) for key, row in enumerate(zip(*columns, strict=True)) if row[0]]


def sum_columns(
    values: Any, codes: list[int] | None, size: int, absent: str | None
) -> list[list[int]] | None:
    """``tallies`` as columns: each sum of ``_summary._COUNTED`` for every key, keys
    with no case-trial included (their sums 0)."""
    positions = values >> 8
    keys = positions if codes is None else code_array(codes, size)[positions]
    if size * 256 <= _CELLS:
        # what is summed depends on the low byte alone: each sum is the cells of the low
        # bytes it holds
        cells = np.bincount(keys.astype(np.int64) * 256 + (values & 255), minlength=size * 256)
        cells = cells.reshape(size, 256)
        sums, unjudged = _masks(np.arange(256, dtype=np.int64), absent)
        if absent is None and cells[:, unjudged].any():
            return None
        columns: list[list[int]] = (cells @ np.array(sums, dtype=np.int64).T).T.tolist()
        return columns
    sums, unjudged = _masks(values, absent)
    if absent is None and unjudged.any():
        return None
    return [np.bincount(keys[mask], minlength=size).tolist() for mask in sums]


def _masks(values: Any, absent: str | None) -> tuple[list[Any], Any]:
    """Which of the case-trials ``values`` each sum of ``_summary._COUNTED`` counts, in
    its order, and which must be graded when ``absent`` is None (a recorded answer or
    abstention without a judgment)."""
    kind = (values >> 6) & 3
    status = (values >> 2) & 15
    judged = kind != ERROR_KIND
    none = judged & (status == NONE)
    unjudged = judged & (status == UNJUDGED)
    if absent is None:
        unjudged |= none
    ungraded = judged & (status == UNGRADED)
    if absent == "ungraded":
        ungraded |= none
    answered = kind == ANSWER_KIND
    sums: list[Any] = [
        np.ones(len(values), dtype=bool),
        judged & (status == PASSED),
        judged & (status == FAILED),
        ~judged | (status == ERROR),
        ungraded,
        judged & (status == MISSING),
        unjudged,
        answered,
        answered & (status == PASSED),
        ~judged,
        judged & (kind != NO_KIND) & ((values & 2) != 0),
        (values & 1) != 0,
    ]
    return sums, unjudged


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
