"""Dataset changelogs: ``<dataset file>.changelog.jsonl`` beside the dataset, one entry per
line (``version``, ``who``, ``why``, ``date``), appended to and never rewritten."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay._validation import parse_located
from assay.errors import AssayConfigError, Location, Problem
from assay.load._json import read_jsonl
from assay.load._paths import path_exists, too_long
from assay.load._records import read_text


def changelog_path(dataset: Path) -> Path:
    """Where the changelog of ``dataset`` lives: beside it, named after it."""
    return dataset.with_name(f"{dataset.name}.changelog.jsonl")


def has_changelog(dataset: Path) -> bool:
    """Whether ``dataset`` has a changelog (none when its name would be too long)."""
    path = changelog_path(dataset)
    return not too_long(path) and path_exists(path, f"the changelog of {dataset}")


def read_changelog(dataset: Path) -> list[dict[str, Any]]:
    """Every entry of the dataset's changelog, oldest first ([] when there is none)."""
    if not has_changelog(dataset):
        return []
    path = changelog_path(dataset)

    def entry(raw: Any, location: Location) -> dict[str, Any] | list[Problem]:
        if not isinstance(raw, dict) or not all(
            isinstance(raw.get(k), str) and raw[k].strip() for k in ("version", "who", "why")
        ):
            return [Problem("an entry needs version, who and why (strings)", location)]
        return raw

    records = read_jsonl(path, read_text(path))
    entries, _ = parse_located(records, entry, f"{path}: invalid changelog")
    return entries


def change_for(dataset: Path, version: str) -> dict[str, Any] | None:
    """The latest entry recorded for ``version`` (who, why, date), or None."""
    found = [e for e in read_changelog(dataset) if e["version"] == version]
    if not found:
        return None
    last = found[-1]
    return {k: last[k] for k in ("who", "why", "date") if isinstance(last.get(k), str)}


def append_change(dataset: Path, version: str, who: str, why: str) -> dict[str, Any]:
    """Append an entry for ``version`` to the dataset's changelog; returns it."""
    if not who.strip() or not why.strip():
        raise AssayConfigError("--who and --why must not be empty")
    entry = {
        "version": version,
        "who": who.strip(),
        "why": why.strip(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }
    path = changelog_path(dataset)
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
    except OSError as err:  # a name too long, a read-only folder, a full disk
        raise AssayConfigError(
            f"the changelog {path}: cannot be written: {err.strerror or err}"
        ) from None
    return entry
