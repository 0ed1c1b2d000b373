"""A case-trial's spans as a tree, with each span's offset, duration and concurrency.

Concurrent siblings (whose time intervals overlap) are flagged rather than summed: a
parent's duration is its own wall-clock time, never the sum of its children.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.outcomes import Span


@dataclass(frozen=True)
class TreeRow:
    """One span in tree order: its depth, start offset from the first span, and whether
    it ran concurrently with a sibling."""

    span: Span
    depth: int
    offset_ms: float
    concurrent: bool

    @property
    def duration_ms(self) -> float:
        return self.span.duration_ms


def _overlaps(a: Span, b: Span) -> bool:
    return a.start_ns < b.end_ns and b.start_ns < a.end_ns


def span_tree(spans: Sequence[Span]) -> list[TreeRow]:
    """Spans depth first, children by start time; orphans (parent not recorded) are roots."""
    ordered = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    ids = {s.span_id for s in ordered}
    children: dict[str | None, list[Span]] = {}
    for span in ordered:
        parent = span.parent_id if span.parent_id in ids else None
        children.setdefault(parent, []).append(span)
    origin = ordered[0].start_ns if ordered else 0
    rows: list[TreeRow] = []

    def walk(parent: str | None, depth: int) -> None:
        siblings = children.get(parent, [])
        for span in siblings:
            concurrent = any(o is not span and _overlaps(span, o) for o in siblings)
            rows.append(TreeRow(span, depth, (span.start_ns - origin) / 1e6, concurrent))
            walk(span.span_id, depth + 1)

    walk(None, 0)
    return rows
