"""Dataset diffs: added, removed and changed cases, each change named by field and kind.

The kind tells whether a score change can come from the labels (``label``: what counts as
correct), from the wording put to the system (``wording``), from the source snapshot it
cites (``source``), or from bookkeeping (``split``, ``other``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.cases._canonical import canonical_record
from assay.cases._case import Case

FIELD_KINDS: dict[str, str] = {
    "expected_behavior": "label",
    "expected_fact": "label",
    "accepted_facts": "label",
    "slice": "label",
    "required": "label",
    "disallowed": "label",
    "requires_citation": "label",
    "question": "wording",
    "messages": "wording",
    "rationale": "wording",
    "source_revision": "source",
    "sources": "source",
    "split": "split",
    "group": "split",
    "synthetic": "other",
    "provenance": "other",
    "metadata": "other",
}
KINDS: tuple[str, ...] = ("label", "wording", "source", "split", "other")


@dataclass(frozen=True)
class FieldChange:
    """One field of a case, before and after."""

    field: str
    kind: str
    old: Any
    new: Any


@dataclass(frozen=True)
class CaseChange:
    """A case present in both versions whose definition changed."""

    case_id: str
    fields: tuple[FieldChange, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        found = {f.kind for f in self.fields}
        return tuple(k for k in KINDS if k in found)

    @property
    def label_changed(self) -> bool:
        return "label" in self.kinds


@dataclass(frozen=True)
class DatasetDiff:
    """What changed from one dataset version to another, in case order."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[CaseChange, ...]
    unchanged: int

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed)

    @property
    def label_changes(self) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.changed if c.label_changed)


def diff_cases(old: Case, new: Case) -> tuple[FieldChange, ...]:
    """The fields whose canonical values differ, in field order."""
    before, after = canonical_record(old), canonical_record(new)
    changes = []
    for name in Case.model_fields:
        if name == "id":
            continue
        a, b = before.get(name), after.get(name)
        if a != b:
            changes.append(FieldChange(name, FIELD_KINDS.get(name, "other"), a, b))
    return tuple(changes)


def diff_datasets(old: Sequence[Case], new: Sequence[Case]) -> DatasetDiff:
    """Cases matched by id: removed (old only), added (new only), changed, unchanged."""
    old_by_id = {c.id: c for c in old}
    new_ids = {c.id for c in new}
    added = tuple(c.id for c in new if c.id not in old_by_id)
    removed = tuple(c.id for c in old if c.id not in new_ids)
    changed: list[CaseChange] = []
    unchanged = 0
    for case in new:
        before = old_by_id.get(case.id)
        if before is None:
            continue
        fields = diff_cases(before, case)
        if fields:
            changed.append(CaseChange(case.id, fields))
        else:
            unchanged += 1
    return DatasetDiff(added, removed, tuple(changed), unchanged)


def _short(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def diff_lines(diff: DatasetDiff) -> list[str]:
    """The diff as text lines: one per added or removed case, one per changed field."""
    lines = [
        f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed "
        f"({len(diff.label_changes)} with label changes), {diff.unchanged} unchanged"
    ]
    lines += [f"+ {case_id}" for case_id in diff.added]
    lines += [f"- {case_id}" for case_id in diff.removed]
    for change in diff.changed:
        lines.append(f"~ {change.case_id} [{', '.join(change.kinds)}]")
        for f in change.fields:
            lines.append(f"    {f.field} ({f.kind}): {_short(f.old)} -> {_short(f.new)}")
    return lines


def diff_json(diff: DatasetDiff) -> dict[str, Any]:
    """The diff as plain JSON data."""
    return {
        "added": list(diff.added),
        "removed": list(diff.removed),
        "unchanged": diff.unchanged,
        "changed": [
            {
                "id": c.case_id,
                "kinds": list(c.kinds),
                "fields": [
                    {"field": f.field, "kind": f.kind, "old": f.old, "new": f.new} for f in c.fields
                ],
            }
            for c in diff.changed
        ],
    }
