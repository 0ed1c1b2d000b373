"""Grouping case-trials (or their rows) by slice, by case or by split: one combinator for
every figure that is counted per group."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def group_by(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """``items`` grouped by ``key``: groups in the order their first item appears, each
    group's items in their own order."""
    groups: dict[K, list[T]] = {}
    for item in items:
        k = key(item)
        found = groups.get(k)
        if found is None:
            groups[k] = [item]
        else:
            found.append(item)
    return groups


def per_case(units: Iterable[tuple[str, bool]]) -> tuple[list[int], list[int]]:
    """For (case id, counted) units: each case's count and its number of units, cases in
    the order they first appear (the inputs of a case-clustered interval)."""
    groups = group_by(units, lambda unit: unit[0])
    hits = [sum(1 for _, hit in items if hit) for items in groups.values()]
    return hits, [len(items) for items in groups.values()]
