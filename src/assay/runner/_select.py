"""Choosing which cases of a dataset a run runs: a slice, explicit ids, the first N."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.cases import Dataset
from assay.errors import AssayConfigError, did_you_mean


@dataclass(frozen=True)
class Selection:
    """``--slice`` (one or more slices), ``--ids`` and ``--limit``, applied in that order."""

    slices: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    limit: int | None = None

    @property
    def empty(self) -> bool:
        return not self.slices and not self.ids and self.limit is None

    def describe(self) -> dict[str, object]:
        """The selection as plain data, for the run's metadata."""
        out: dict[str, object] = {}
        if self.slices:
            out["slices"] = list(self.slices)
        if self.ids:
            out["ids"] = list(self.ids)
        if self.limit is not None:
            out["limit"] = self.limit
        return out


def _unknown(kind: str, names: Sequence[str], known: Sequence[str]) -> AssayConfigError:
    first = names[0]
    return AssayConfigError(
        f"--{kind} {','.join(names)}: not in the dataset{did_you_mean(first, known)}"
    )


def select(dataset: Dataset, selection: Selection) -> Dataset:
    """The selected cases, in dataset order; unknown slices or ids are errors."""
    cases = list(dataset.cases)
    if selection.slices:
        known = sorted({c.slice for c in cases})
        missing = [s for s in selection.slices if s not in known]
        if missing:
            raise _unknown("slice", missing, known)
        cases = [c for c in cases if c.slice in selection.slices]
    if selection.ids:
        known_ids = [c.id for c in cases]
        missing = [i for i in selection.ids if i not in set(known_ids)]
        if missing:
            raise _unknown("ids", missing, known_ids)
        wanted = set(selection.ids)
        cases = [c for c in cases if c.id in wanted]
    if selection.limit is not None:
        if selection.limit < 1:
            raise AssayConfigError(f"--limit {selection.limit}: must be at least 1")
        cases = cases[: selection.limit]
    if not cases:
        raise AssayConfigError("the selection leaves no cases to run")
    return Dataset(name=dataset.name, cases=tuple(cases))
