"""Counts a field at a time: columns that give back the entries, and groups by label."""

from __future__ import annotations

import numpy as np

from assay.metrics._columns import CountColumns, Grouped
from assay.metrics._counts import Counts


def _counts(n: int) -> list[Counts]:
    return [
        Counts(i, 1, f"c{i}", "ab"[i % 2], i % 3 == 0, "dev", recorded=i, passed=i // 2)
        for i in range(n)
    ]


def test_columns_hold_every_field_of_every_entry_in_order() -> None:
    items = _counts(7)
    columns = CountColumns.of(items)
    assert len(columns) == 7
    for name in Counts._fields:
        got = getattr(columns, name)
        assert list(got) == [getattr(c, name) for c in items], name
    assert columns.recorded.dtype == np.int64 and isinstance(columns.slice, list)
    assert columns.total("recorded") == sum(c.recorded for c in items)
    assert type(columns.total("passed")) is int


def test_where_keeps_the_chosen_entries_in_order_and_joined_puts_parts_together() -> None:
    items = _counts(9)
    columns = CountColumns.of(items)
    keep = np.array([c.synthetic for c in items])
    synthetic, real = columns.where(keep), columns.where(~keep)
    assert synthetic.case_id == [c.case_id for c in items if c.synthetic]
    assert real.passed.tolist() == [c.passed for c in items if not c.synthetic]
    again = CountColumns.joined([real, synthetic])
    expected = [c for c in items if not c.synthetic] + [c for c in items if c.synthetic]
    assert again.case_id == [c.case_id for c in expected]
    assert again.recorded.tolist() == [c.recorded for c in expected]
    assert CountColumns.joined([columns]) is columns


def test_no_entries() -> None:
    columns = CountColumns.of([])
    assert len(columns) == 0 and columns.total("passed") == 0
    grouped = Grouped.of([])
    assert grouped.names == [] and grouped.sums(columns.passed) == []


def test_groups_in_the_order_their_labels_first_appear_with_positions_in_order() -> None:
    labels = ["b", "a", "b", "c", "a", "b"]
    grouped = Grouped.of(labels)
    assert grouped.names == ["b", "a", "c"]
    assert [grouped.positions(i).tolist() for i in range(3)] == [[0, 2, 5], [1, 4], [3]]
    values = np.array([1, 10, 100, 1000, 10000, 100000], dtype=np.int64)
    assert grouped.sums(values) == [100101, 10010, 1000]
