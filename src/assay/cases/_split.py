"""Held-out splits without leakage: assigning ``split`` and finding leaks in an existing one.

A *unit* is a set of cases that must stay on one side: every case of a ``group`` and every
case of a near-duplicate cluster, joined transitively. Units are assigned whole, stratum by
stratum (slice × expected behaviour), in an order fixed by the seed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from assay.cases._case import Case, Split
from assay.cases._near import Cluster


@dataclass(frozen=True)
class Unit:
    """Indexes of cases that must share a split."""

    indexes: tuple[int, ...]


def units_of(cases: Sequence[Case], clusters: Sequence[Cluster]) -> tuple[Unit, ...]:
    """The cases joined by shared ``group`` or near-duplicate cluster, in case order."""
    parent = list(range(len(cases)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    first_in_group: dict[str, int] = {}
    for i, case in enumerate(cases):
        if case.group is not None:
            union(first_in_group.setdefault(case.group, i), i)
    for cluster in clusters:
        head = cluster.members[0].index
        for member in cluster.members[1:]:
            union(head, member.index)
    joined: dict[int, list[int]] = {}
    for i in range(len(cases)):
        joined.setdefault(find(i), []).append(i)
    return tuple(Unit(tuple(v)) for v in sorted(joined.values()))


def _stratum(cases: Sequence[Case], unit: Unit) -> tuple[str, str]:
    counts = Counter((cases[i].slice, cases[i].expected_behavior) for i in unit.indexes)
    return min(counts, key=lambda k: (-counts[k], k))


def _order(seed: int, cases: Sequence[Case], unit: Unit) -> str:
    key = f"{seed}\x00{cases[unit.indexes[0]].id}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def assign_splits(
    cases: Sequence[Case], clusters: Sequence[Cluster], heldout: float, seed: int
) -> dict[str, Split]:
    """``split`` for every case id: about ``heldout`` of each stratum goes to held-out.

    Deterministic: the same cases, clusters, fraction and seed give the same assignment.
    A unit is never divided; within a stratum, units are taken in seeded order while adding
    one brings the held-out count closer to its target.
    """
    if not 0 <= heldout < 1:
        raise ValueError("the held-out fraction must be at least 0 and below 1")
    strata: dict[tuple[str, str], list[Unit]] = {}
    for unit in units_of(cases, clusters):
        strata.setdefault(_stratum(cases, unit), []).append(unit)
    result: dict[str, Split] = {c.id: "dev" for c in cases}
    for key in sorted(strata):
        units = sorted(strata[key], key=lambda u: _order(seed, cases, u))
        target = heldout * sum(len(u.indexes) for u in units)
        taken = 0
        for unit in units:
            size = len(unit.indexes)
            if abs(taken + size - target) < abs(taken - target):
                taken += size
                for i in unit.indexes:
                    result[cases[i].id] = "heldout"
    return result


@dataclass(frozen=True)
class Leak:
    """A group or near-duplicate cluster with cases on both sides of the split."""

    kind: str  # "group" or "near-duplicate"
    name: str
    dev: tuple[str, ...]
    heldout: tuple[str, ...]


def find_leaks(cases: Sequence[Case], clusters: Sequence[Cluster]) -> tuple[Leak, ...]:
    """Every group and every near-duplicate cluster present in both dev and held-out."""
    leaks: list[Leak] = []
    groups: dict[str, list[Case]] = {}
    for case in cases:
        if case.group is not None:
            groups.setdefault(case.group, []).append(case)
    for name, members in groups.items():
        leak = _leak("group", name, members)
        if leak is not None:
            leaks.append(leak)
    for cluster in clusters:
        members = [cases[m.index] for m in cluster.members]
        leak = _leak("near-duplicate", members[0].id, members)
        if leak is not None:
            leaks.append(leak)
    return tuple(leaks)


def _leak(kind: str, name: str, members: Sequence[Case]) -> Leak | None:
    dev = tuple(c.id for c in members if c.split == "dev")
    held = tuple(c.id for c in members if c.split == "heldout")
    return Leak(kind, name, dev, held) if dev and held else None
