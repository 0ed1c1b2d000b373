"""``ImportedRun``: another tool's log turned into assay's cases, records and judgments."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from assay.cases import Dataset
from assay.grading import Judgment
from assay.outcomes import Record


@dataclass(frozen=True)
class Source:
    """Where an import came from: the tool, its version, the file and its content hash."""

    tool: str
    tool_version: str | None
    path: str
    sha256: str
    reported: str
    notes: tuple[str, ...] = ()

    def as_metadata(self) -> dict[str, Any]:
        """What the stored run keeps under ``metadata["imported"]``."""
        return {
            "tool": self.tool,
            "tool_version": self.tool_version,
            "file": self.path,
            "sha256": self.sha256,
            "reported": self.reported,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class ImportedRun:
    """One run of another tool, ready to be stored as an assay run.

    Cases the log planned but never recorded have no record (they are ``missing``);
    errored samples have an error record; judgments exist only where a score was mapped
    or found unmappable (``ungraded``).
    """

    dataset: Dataset
    records: tuple[Record, ...]
    judgments: tuple[Judgment, ...]
    trials: int
    source: Source
    target: dict[str, Any]
    grader: dict[str, str]
    started_at: datetime | None = None
    ended_at: datetime | None = None
    status: str = "completed"
    extra: dict[str, Any] = field(default_factory=dict)
    variant: str | None = None
    """The variant this run is of a matrix imported from one file (a promptfoo prompt ×
    provider column), or None for a run on its own."""
    overrides: dict[str, Any] = field(default_factory=dict)
    """What sets this variant apart from the others of its matrix (``provider``, and
    ``prompt`` when the file has several prompts); empty for a run on its own."""


def file_sha256(path: Path) -> str:
    """``sha256:<hex>`` of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 time from a log (``Z`` accepted), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
