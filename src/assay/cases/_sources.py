"""Source snapshots: the text of each policy section at a revision, for citation checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from assay.cases._canonical import content_hash
from assay.cases._case import Case

Snapshot = Mapping[str, str]
"""Section id -> section text, at one source revision."""


@dataclass(frozen=True)
class SourceLibrary:
    """Snapshots by revision: ``{"returns-v3": {"standard-window": "Items ...", ...}}``.

    A case's snapshot is its inline ``sources`` when it has them, otherwise the library's
    snapshot for the case's ``source_revision``; None when neither exists.
    """

    revisions: Mapping[str, Snapshot] = field(default_factory=dict)
    origin: str | None = field(default=None, compare=False)

    def snapshot_for(self, case: Case) -> Snapshot | None:
        """The section texts the case's answer may cite, or None when none are known."""
        if case.sources is not None:
            return case.sources
        if case.source_revision is None:
            return None
        return self.revisions.get(case.source_revision)

    def why_missing(self, case: Case) -> str:
        """Why ``snapshot_for(case)`` is None, in one line."""
        if case.source_revision is None:
            return "the case has no source_revision and no inline sources"
        where = f" in {self.origin}" if self.origin else ""
        return f"no source snapshot for revision '{case.source_revision}'{where}"

    @property
    def version(self) -> str | None:
        """Content hash of every snapshot, or None for an empty library."""
        if not self.revisions:
            return None
        return content_hash({r: dict(s) for r, s in self.revisions.items()})


EMPTY_SOURCES = SourceLibrary()
