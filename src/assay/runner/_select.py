"""Choosing which cases of a dataset a run runs: a slice, explicit ids, the first N."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.cases import Dataset
from assay.errors import AssayConfigError, did_you_mean

SPLITS = ("dev", "heldout", "all")


@dataclass(frozen=True)
class Selection:
    """``--split``, ``--slice`` (one or more slices), ``--ids`` and ``--limit``, applied in
    that order.

    ``split`` is ``dev`` (the default), ``heldout`` or ``all``; any selection that includes
    held-out cases needs ``confirm_heldout`` (``--confirm``): a held-out split is for
    confirming a result, and every run of it is counted.
    """

    slices: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    limit: int | None = None
    split: str = "dev"
    confirm_heldout: bool = False

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise AssayConfigError(
                f"--split {self.split}: unknown split{did_you_mean(self.split, SPLITS)}; "
                f"choose one of {', '.join(SPLITS)}"
            )

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
    """The selected cases, in dataset order; unknown slices or ids are errors, and so is a
    selection with held-out cases that was not confirmed."""
    cases = list(dataset.cases)
    if selection.split != "all":
        cases = [c for c in cases if c.split == selection.split]
        if not cases:
            raise AssayConfigError(f"--split {selection.split}: the dataset has no such case")
    if any(c.split == "heldout" for c in cases) and not selection.confirm_heldout:
        held = sum(c.split == "heldout" for c in cases)
        raise AssayConfigError(
            f"--split {selection.split}: refusing to run {held} held-out case(s) without "
            "--confirm. The held-out split confirms a result; every run of it is counted "
            "and shown, so run it on purpose: --split heldout --confirm"
        )
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
