"""composite_all: every case at every trial once, recorded and free-text lines side by side."""

from __future__ import annotations

from typing import Any

from assay.cases import Case, SourceLibrary
from assay.errors import Location
from assay.grading.checks import DEFAULT_WEIGHTS, CompositeScorer, composite_all
from assay.grading.checks import parse_composite_results as parse

CASES = [
    Case(id="a", slice="s", question="q?", expected_behavior="abstain"),
    Case(
        id="b",
        slice="s",
        question="q?",
        source_revision="v1",
        expected_behavior="answer",
        expected_fact="f",
        required=("30 days",),
    ),
]
LIBRARY = SourceLibrary({"v1": {"sec": "Returns within 30 days."}})


def lines(*raw: Any) -> list[tuple[Location, Any]]:
    return [(Location("r.jsonl", i), item) for i, item in enumerate(raw, start=1)]


def test_mixed_lines_and_trials_give_one_row_per_case_trial() -> None:
    all_true = dict.fromkeys(DEFAULT_WEIGHTS, True)
    inputs = parse(
        lines(
            {"id": "a", "checks": all_true},
            {"id": "a", "trial": 2, "kind": "error", "message": "timeout"},
            {"id": "b", "kind": "answer", "text": "Within 30 days.", "citations": ["sec"]},
            {"id": "b", "trial": 2, "kind": "abstain", "reason": "unsure"},
        ),
        "r.jsonl",
        list(DEFAULT_WEIGHTS),
    )
    scored = composite_all(CASES, inputs, CompositeScorer(sources=LIBRARY))
    got = [(s.case.id, s.trial, s.status) for s in scored]
    assert got == [("a", 1, "passed"), ("a", 2, "error"), ("b", 1, "passed"), ("b", 2, "failed")]
    assert scored[1].composite is None and scored[1].reason == "error: timeout"


def test_a_case_with_no_line_is_missing_never_scored() -> None:
    inputs = parse(lines({"id": "a", "kind": "abstain", "reason": "not covered"}), "r", [])
    scored = composite_all(CASES, inputs, CompositeScorer(sources=LIBRARY))
    assert [(s.case.id, s.status) for s in scored] == [("a", "passed"), ("b", "missing")]
    assert scored[1].composite is None and scored[1].reason == "no recorded outcome"
