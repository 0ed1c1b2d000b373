"""A dataset: a named, ordered collection of cases with a content-hash version."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from assay.cases._canonical import canonical_json, hash_cases
from assay.cases._case import Case
from assay.cases._sources import EMPTY_SOURCES, SourceLibrary
from assay.errors import DuplicateCaseIdError, Location


def check_unique_ids(
    cases: Sequence[Case], locations: Sequence[Location | None] | None = None
) -> None:
    """Raise ``DuplicateCaseIdError`` naming every id used more than once (with where)."""
    if len({case.id for case in cases}) == len(cases):
        return  # the usual dataset: no list of places per id is needed
    seen: dict[str, list[Location | None]] = {}
    for i, case in enumerate(cases):
        seen.setdefault(case.id, []).append(locations[i] if locations else None)
    duplicates = {k: v for k, v in seen.items() if len(v) > 1}
    if duplicates:
        raise DuplicateCaseIdError(duplicates)


@dataclass(frozen=True)
class Dataset:
    """Ordered cases with a name; ``version`` is ``sha256:<hex>`` of their canonical form.

    Construction rejects duplicate ids. ``locations`` (optional, parallel to ``cases``)
    records where each case was read, for error messages. ``sources`` holds the source
    snapshots a dataset file names in its header (``sources: file``), for citation checks.
    ``change`` is the changelog entry recorded for this version (see docs/datasets.md).
    """

    name: str
    cases: tuple[Case, ...]
    locations: tuple[Location | None, ...] = field(default=(), compare=False, repr=False)
    sources: SourceLibrary = field(default=EMPTY_SOURCES, compare=False, repr=False)
    change: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """The changelog entry (who, why, date) recorded for this version, when there is one."""

    def __post_init__(self) -> None:
        check_unique_ids(self.cases, self.locations or None)

    @cached_property
    def _hashes(self) -> tuple[str, list[str]]:
        return hash_cases(self.cases)

    @cached_property
    def version(self) -> str:
        """Content hash of the canonical case records, independent of key order and layout."""
        return self._hashes[0]

    @property
    def hashes_in_order(self) -> list[str]:
        """Each case's content hash (``case_hash``), in the order of ``cases``."""
        return self._hashes[1]

    def without_locations(self) -> Dataset:
        """This dataset keeping no locations (they serve the checks made as it is loaded)."""
        return replace(self, locations=())

    @cached_property
    def case_hashes(self) -> dict[str, str]:
        """Each case's content hash (``case_hash``), by id."""
        return {c.id: h for c, h in zip(self.cases, self._hashes[1], strict=True)}

    def cases_json(self) -> str:
        """The canonical JSON of the cases' full records (every field, defaults included),
        in order: what the store keeps as a run's cases. Within ``sharing_json()`` it is
        made once for all the runs that store these cases (the variants of a matrix)."""
        kept: str | None = self.__dict__.get("_cases_json")
        if kept is not None:
            return kept
        text = canonical_json([c.model_dump(mode="json") for c in self.cases])
        if self.__dict__.get("_sharing_json"):
            self.__dict__["_cases_json"] = text
        return text

    @contextmanager
    def sharing_json(self) -> Iterator[None]:
        """Keep ``cases_json()`` once made, until the block ends (then it is let go: a big
        dataset's text is not held longer than the runs that share it need it)."""
        self.__dict__["_sharing_json"] = True
        try:
            yield
        finally:
            self.__dict__.pop("_sharing_json", None)
            self.__dict__.pop("_cases_json", None)

    @property
    def ids(self) -> tuple[str, ...]:
        """Case ids in dataset order."""
        return tuple(c.id for c in self.cases)

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    def get(self, case_id: str) -> Case | None:
        """The case with this id, or None."""
        for case in self.cases:
            if case.id == case_id:
                return case
        return None

    @property
    def real(self) -> tuple[Case, ...]:
        """Cases that are not synthetic."""
        return tuple(c for c in self.cases if not c.synthetic)

    @property
    def synthetic(self) -> tuple[Case, ...]:
        """Cases flagged synthetic: reported apart, never in real totals."""
        return tuple(c for c in self.cases if c.synthetic)
