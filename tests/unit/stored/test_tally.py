"""Each group's first case and size, found with numpy, are those a plain loop finds, for
few groups (a byte per case) and many."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.stored._tally import group_extent


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
