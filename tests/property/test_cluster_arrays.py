"""The clustered interval of counts given as numpy arrays is the one of the same counts
given as lists, to the last bit: a million cases' counts are never turned back into
lists to be summed."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.metrics._cluster import clustered_counts, clustered_rate
from assay.metrics._rate import rate


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    sizes = draw(st.lists(st.integers(0, 9), max_size=60))
    hits = [draw(st.integers(0, m)) for m in sizes]
    return hits, sizes


@settings(max_examples=300, deadline=None)
@given(cases=_cases())
def test_integer_arrays_give_what_lists_give(cases: tuple[list[int], list[int]]) -> None:
    hits, sizes = cases
    as_lists = clustered_rate(hits, sizes)
    as_arrays = clustered_rate(np.array(hits, dtype=np.int64), np.array(sizes, dtype=np.int64))
    assert as_arrays == as_lists
    kept = [(y, m) for y, m in zip(hits, sizes, strict=True) if m]
    if kept and all(m for m in sizes):
        r = rate(sum(hits), sum(sizes), "case-trials")
        by_list = clustered_counts(r, hits, sizes)
        assert clustered_counts(r, np.array(hits), np.array(sizes)) == by_list


@settings(max_examples=300, deadline=None)
@given(scores=st.lists(st.floats(0, 1), min_size=1, max_size=60))
def test_float_scores_are_summed_in_order_as_python_sums_them(scores: list[float]) -> None:
    ones = [1] * len(scores)
    as_list = clustered_rate(scores, ones, max_effective=3 * len(scores))
    as_array = clustered_rate(np.array(scores), np.array(ones), max_effective=3 * len(scores))
    assert as_array == as_list
    assert as_list is not None and as_list.value == sum(scores) / len(scores)
