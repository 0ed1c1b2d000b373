"""Loading source snapshots (revision -> section id -> text) for citation checks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from assay.cases import Dataset, SourceLibrary
from assay.errors import InputFormatError, Location, Problem
from assay.load._paths import named_file
from assay.load._records import read_yaml


def load_sources(path: str | Path) -> SourceLibrary:
    """Source snapshots from a YAML or JSON file shaped ``{revision: {section_id: text}}``.

    Example::

        returns-v3:
          standard-window: "Items bought online can be returned within 30 days."
          custom-exception: "Custom-printed products cannot be returned."
    """
    p = Path(path)
    data = read_yaml(p, "sources")
    where = Location(str(p))
    if not isinstance(data, dict) or not data:
        raise InputFormatError(
            [Problem("expected a mapping of revision -> {section id: text}", where)],
            summary=f"{p}: invalid sources",
        )
    problems: list[Problem] = []
    revisions: dict[str, dict[str, str]] = {}
    for revision, sections in data.items():
        if not isinstance(sections, dict) or not sections:
            problems.append(
                Problem(f"revision {revision!r}: expected a mapping of section id -> text", where)
            )
            continue
        bad = [str(k) for k, v in sections.items() if not isinstance(v, str)]
        if bad:
            problems.append(
                Problem(f"revision {revision!r}: section text must be a string: {bad}", where)
            )
        revisions[str(revision)] = {str(k): str(v) for k, v in sections.items()}
    if problems:
        raise InputFormatError(problems, summary=f"{p}: invalid sources")
    return SourceLibrary(revisions=revisions, origin=str(p))


def with_sources(dataset: Dataset, value: Any, dataset_path: Path) -> Dataset:
    """``dataset`` carrying the sources file its header names (relative to the dataset)."""
    return dataclasses.replace(dataset, sources=header_sources(value, dataset_path))


def header_sources(value: Any, dataset_path: Path) -> SourceLibrary:
    """The source snapshots a dataset header's ``sources:`` names (relative to the dataset)."""
    if not isinstance(value, str) or not value.strip():
        raise InputFormatError(
            [Problem("sources must be a file path", Location(str(dataset_path), 1), "sources")],
            summary=f"{dataset_path}: invalid dataset",
        )
    where = Location(str(dataset_path), 1)
    return load_sources(named_file(value, dataset_path.parent, where, "sources", "dataset"))


def merge_sources(first: SourceLibrary, second: SourceLibrary) -> SourceLibrary:
    """Both libraries' revisions; ``second`` wins where both define one revision."""
    if not first.revisions:
        return second
    if not second.revisions:
        return first
    origin = ", ".join(o for o in (first.origin, second.origin) if o) or None
    return SourceLibrary(revisions={**first.revisions, **second.revisions}, origin=origin)
