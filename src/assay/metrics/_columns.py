"""Many cases' counts a field at a time: what a summary of a million case-trials adds up
per slice and per case, without a tuple per case."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from itertools import count
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from assay.metrics._counts import Counts

# The fields of ``Counts`` that are names and flags; every other one is a number.
_LABELS = ("case_id", "slice", "synthetic", "split")


@dataclass(frozen=True, slots=True)
class CountColumns:
    """The fields of many ``Counts`` (one entry each, in their order): names and flags
    as lists, numbers as numpy int64 arrays."""

    first: Any
    cases: Any
    case_id: list[str]
    slice: list[str]
    synthetic: list[bool]
    split: list[str]
    recorded: Any
    passed: Any
    failed: Any
    error: Any
    ungraded: Any
    judged_missing: Any
    answered: Any
    correct: Any
    errored: Any
    labelled: Any
    cache_notes: Any
    answered_unknown: Any

    @classmethod
    def of(cls, items: Sequence[Counts]) -> CountColumns:
        """The columns of ``items``."""
        names = [f.name for f in fields(cls)]
        columns = list(zip(*items, strict=True)) if items else [()] * len(names)
        return cls(**{n: _column(n, c) for n, c in zip(names, columns, strict=True)})

    @classmethod
    def joined(cls, parts: Sequence[CountColumns]) -> CountColumns:
        """The entries of ``parts`` one after another."""
        if len(parts) == 1:
            return parts[0]
        values: dict[str, Any] = {}
        for f in fields(cls):
            pieces = [getattr(p, f.name) for p in parts]
            joined = [x for piece in pieces for x in piece]
            values[f.name] = joined if f.name in _LABELS else np.concatenate(pieces)
        return cls(**values)

    def __len__(self) -> int:
        return len(self.case_id)

    def where(self, keep: Any) -> CountColumns:
        """The entries where the numpy boolean array ``keep`` is true, in order."""
        chosen = np.flatnonzero(keep).tolist()
        values: dict[str, Any] = {}
        for f in fields(self):
            column = getattr(self, f.name)
            values[f.name] = (
                list(map(column.__getitem__, chosen)) if f.name in _LABELS else column[keep]
            )
        return CountColumns(**values)

    def total(self, name: str) -> int:
        """The sum of the numeric column ``name``."""
        return int(getattr(self, name).sum())


def _column(name: str, values: Sequence[Any]) -> Any:
    if name in _LABELS:
        return list(values)
    return np.array(values, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Grouped:
    """Entries grouped by a label: the labels in the order they first appear, and each
    group's positions (in order) as ``order[bounds[i]:bounds[i + 1]]``."""

    names: list[str]
    order: Any
    bounds: list[int]

    @classmethod
    def of(cls, labels: Sequence[str]) -> Grouped:
        """The entries of ``labels`` grouped by label."""
        code: dict[str, int] = {}
        # each entry numbered by the first position of its label, then densely
        first = np.fromiter(map(code.setdefault, labels, count()), np.int64, len(labels))
        dense = np.zeros(len(labels), dtype=np.int64)
        dense[list(code.values())] = np.arange(len(code))
        codes = dense[first]
        order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes, minlength=len(code))
        bounds = [0, *np.cumsum(sizes).tolist()]
        return cls(list(code), order, bounds)

    def positions(self, i: int) -> Any:
        """The positions of group ``i``'s entries, in order (a numpy array)."""
        return self.order[self.bounds[i] : self.bounds[i + 1]]

    def sums(self, column: Any) -> list[int]:
        """Each group's sum of the numeric ``column`` (a numpy int64 array)."""
        if not self.names:
            return []
        return np.add.reduceat(column[self.order], self.bounds[:-1]).tolist()  # type: ignore[no-any-return]
