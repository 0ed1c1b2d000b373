"""Each group's first case and size, found with numpy, are those a plain loop finds, for
few groups (a byte per case) and many; the case-trials' sums are the same counted either
way numpy counts them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.metrics import _tally
from assay.metrics._tally import group_extent, tallies


def _reference(codes: list[int], size: int) -> tuple[list[int], list[int]]:
    first, sizes = [-1] * size, [0] * size
    for at, code in enumerate(codes):
        if first[code] < 0:
            first[code] = at
        sizes[code] += 1
    return first, sizes


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 700).flatmap(
        lambda size: st.tuples(st.just(size), st.lists(st.integers(0, size - 1), max_size=2_000))
    )
)
def test_group_extent_is_what_a_loop_finds(drawn: tuple[int, list[int]]) -> None:
    size, codes = drawn
    assert group_extent(codes, size) == _reference(codes, size)


def test_group_extent_of_no_cases() -> None:
    assert group_extent([], 0) == ([], [])
    assert group_extent([], 3) == ([-1, -1, -1], [0, 0, 0])


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda size: st.tuples(
            st.just(size),
            st.lists(st.tuples(st.integers(0, 299), st.integers(0, 255)), min_size=0, max_size=600),
            st.lists(st.integers(0, size - 1), min_size=300, max_size=300),
            st.sampled_from([None, "ungraded"]),
            st.booleans(),
        )
    )
)
def test_counting_by_cells_equals_counting_each_sum(
    drawn: tuple[int, list[tuple[int, int]], list[int], str | None, bool],
) -> None:
    """One ``bincount`` of (key, low byte) read off by sum gives the rows one
    ``bincount`` per sum gives, by group or by position, for any kind, status, labels
    and cache note."""
    size, trials, codes, absent, by_group = drawn
    values = np.array([position * 256 + low for position, low in trials], dtype=np.int64)
    keys, keyed = (codes, size) if by_group else (None, 300)
    cells = tallies(values, keys, keyed, absent)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_tally, "_CELLS", 0)
        each = tallies(values, keys, keyed, absent)
    assert cells == each
