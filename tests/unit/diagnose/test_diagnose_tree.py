"""The span tree: depth-first, offsets from the first span, concurrency flagged."""

from __future__ import annotations

from assay.diagnose import span_tree
from assay.outcomes import Span


def span(span_id: str, parent: str | None, start_ms: float, end_ms: float) -> Span:
    return Span(
        trace_id="t" * 32,
        span_id=span_id,
        parent_id=parent,
        name=span_id,
        start_ns=int(start_ms * 1e6),
        end_ns=int(end_ms * 1e6),
    )


def test_concurrent_siblings_are_flagged_and_never_summed() -> None:
    spans = [
        span("fetch-b", "retrieval", 1.5, 3.5),
        span("root", None, 0, 10),
        span("retrieval", "root", 1, 4),
        span("fetch-a", "retrieval", 1.2, 3.0),
        span("chat", "root", 5, 9),
    ]
    rows = span_tree(spans)
    assert [(r.span.name, r.depth) for r in rows] == [
        ("root", 0),
        ("retrieval", 1),
        ("fetch-a", 2),
        ("fetch-b", 2),
        ("chat", 1),
    ]
    concurrent = {r.span.name for r in rows if r.concurrent}
    assert concurrent == {"fetch-a", "fetch-b"}
    retrieval = rows[1]
    assert retrieval.duration_ms == 3.0  # its own wall time, not 1.8 + 2.0
    assert rows[4].offset_ms == 5.0


def test_a_span_whose_parent_was_not_recorded_is_a_root() -> None:
    rows = span_tree([span("orphan", "gone", 0, 1)])
    assert [(r.span.name, r.depth, r.concurrent) for r in rows] == [("orphan", 0, False)]


def test_no_spans_no_rows() -> None:
    assert span_tree([]) == []
