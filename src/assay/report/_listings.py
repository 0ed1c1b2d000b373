"""What the dataset and store commands show, as values ``render`` draws: the stored runs
(``assay runs``), a dataset's problems (``assay validate``), its duplicate clusters
(``assay dedupe``), the changes between two versions (``assay diff-dataset``) and what the
response cache holds (``assay cache stats``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.cases import Cluster, DatasetDiff, Finding


@dataclass(frozen=True)
class RunListing:
    """Stored runs, newest first, each as its JSON row (id, started_at, suite, dataset,
    target, split, status, task success with its interval, usage and cost, tags, and
    whether a judge calibration applies: ``applies``, ``stale: …``, ``none`` or ``-``)."""

    rows: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Validation:
    """Every problem found in one dataset file, each located and with its fix."""

    dataset: str
    cases: int
    errors: int
    warnings: int
    strict: bool
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class Duplicates:
    """A dataset's clusters of identical or near-identical inputs (the first case of each
    kept), found with character shingles of ``shingle`` at Jaccard similarity
    ``threshold`` or more."""

    dataset: str
    cases: int
    shingle: int
    threshold: float
    clusters: tuple[Cluster, ...]

    @property
    def dropped(self) -> int:
        """How many cases keeping only each cluster's first would drop."""
        return sum(len(c.members) - 1 for c in self.clusters)


@dataclass(frozen=True)
class DatasetSide:
    """One of the two dataset files compared: its path, content version and case count."""

    path: str
    version: str
    cases: int


@dataclass(frozen=True)
class DatasetChanges:
    """What changed from dataset ``old`` to dataset ``new``, case by case."""

    old: DatasetSide
    new: DatasetSide
    diff: DatasetDiff


@dataclass(frozen=True)
class CacheContents:
    """What a response cache file holds: entries, size on disk, the oldest and newest
    entry's time (None when empty) and entries per cache-key version."""

    path: str
    entries: int
    bytes: int
    oldest: str | None
    newest: str | None
    key_version: int
    by_key_version: Mapping[str, int] = field(default_factory=dict)


__all__ = [
    "CacheContents",
    "DatasetChanges",
    "DatasetSide",
    "Duplicates",
    "RunListing",
    "Validation",
]
