"""group_by and per_case: every item in exactly one group, in first-appearance order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assay.metrics import group_by, per_case


def test_groups_keep_first_appearance_order_and_item_order() -> None:
    items = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]
    assert group_by(items, lambda x: x[0]) == {
        "b": [("b", 1), ("b", 3)],
        "a": [("a", 2), ("a", 5)],
        "c": [("c", 4)],
    }
    assert list(group_by(items, lambda x: x[0])) == ["b", "a", "c"]
    assert group_by([], lambda x: x) == {}


def test_per_case_counts_hits_and_units_per_case() -> None:
    units = [("c1", True), ("c2", False), ("c1", False), ("c1", True), ("c2", False)]
    assert per_case(units) == ([2, 0], [3, 2])


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.booleans())))
def test_per_case_agrees_with_a_plain_count(units: list[tuple[str, bool]]) -> None:
    hits, sizes = per_case(units)
    order = list(dict.fromkeys(case for case, _ in units))
    assert hits == [sum(1 for c, h in units if c == case and h) for case in order]
    assert sizes == [sum(1 for c, _ in units if c == case) for case in order]
    assert sum(sizes) == len(units)
