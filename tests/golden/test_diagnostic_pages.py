"""Snapshot tests of the text and Markdown that ``assay trend``, ``assay diagnose`` and
``assay trace`` write, from fixed inputs built in memory (runs of the trend's test
datasets, hand-made findings and spans).

To accept a deliberate change of output, regenerate the snapshots and review the diff:

    ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import timedelta

import pytest
from tests.golden._inputs import HERE
from tests.trend_stores import START, V1, V2
from tests.unit.trend.helpers import suite_run

from assay.diagnose import Finding, span_tree
from assay.outcomes import Span
from assay.render import render
from assay.trend import Trend, build_trend

UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"


def _check(rendered: str, name: str) -> None:
    snapshot = HERE / "snapshots" / name
    if UPDATE:
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot}; run with ASSAY_UPDATE_GOLDEN=1"
    assert rendered == snapshot.read_text(encoding="utf-8"), (
        f"{snapshot.name} changed; if intended, run ASSAY_UPDATE_GOLDEN=1 pytest tests/golden "
        "and review the diff"
    )


def _trend() -> Trend:
    runs = [
        replace(suite_run("a1", 1, V1, range(30)), git_commit="0123456789abcdef"),
        replace(suite_run("a2", 2, V1, range(31)), tags=("nightly", "*pinned* | <b>")),
        suite_run("a3", 3, V1, range(30)),
        suite_run("b1", 4, V1, range(38), config="c2"),
        suite_run("b2", 5, V2, range(38), config="c2"),
        suite_run("b3", 6, V2, range(20), config="c2"),
    ]
    return build_trend("nightly | <i>_x_</i>", runs, since=START + timedelta(hours=1))


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_trend_pages_match_their_snapshots(fmt: str) -> None:
    suffix = "txt" if fmt == "text" else "md"
    _check(render(_trend(), fmt), f"trend.{suffix}")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_empty_trend_matches_its_snapshot(fmt: str) -> None:
    suffix = "txt" if fmt == "text" else "md"
    _check(render(build_trend("empty", []), fmt), f"trend-empty.{suffix}")


FINDINGS = [
    Finding(
        case="c1",
        status="failed",
        stage="retrieval",
        evidence=("outcome: failed (wrong fact)", "the gold section s3 was not retrieved"),
        next_step="inspect the retriever's candidates",
        rule="gold_not_retrieved",
    ),
    Finding(
        case="c2",
        trial=2,
        status="error",
        stage=None,
        evidence=("outcome: error (timeout)",),
        next_step="read the traceback with assay trace",
        rule="no_spans",
    ),
    Finding(
        case="c3",
        status="passed",
        stage=None,
        evidence=("outcome: passed",),
        next_step="nothing to do",
        rule="passed",
    ),
    Finding(
        case="c4 \x1b[31m",
        status="failed",
        stage="generation",
        evidence=("outcome: failed", "the answer cites s9, which was not in the context"),
        next_step="inspect the prompt",
        rule="cited_outside_context",
    ),
]


def test_diagnose_pages_match_their_snapshots() -> None:
    from assay.render.diagnosis import render_finding, render_groups

    _check(render_finding(FINDINGS[0]), "diagnose-finding.txt")
    _check(render_finding(FINDINGS[2]), "diagnose-passed.txt")
    _check(render_groups("run-1", FINDINGS), "diagnose-all.txt")
    _check(render_groups("run-2", FINDINGS[2:3]), "diagnose-none.txt")


def _span(
    span_id: str, parent: str | None, start_ms: float, end_ms: float, **attrs: object
) -> Span:
    return Span(
        trace_id="t" * 32,
        span_id=span_id,
        parent_id=parent,
        name=span_id,
        start_ns=int(start_ms * 1e6),
        end_ns=int(end_ms * 1e6),
        attributes=attrs,
    )


SPANS = [
    _span("root", None, 0, 10, **{"assay.config.version": "sha256:" + "a" * 64}),
    _span("retrieval", "root", 1, 4, **{"retrieval.selected_ids": ["s1", "s2"]}),
    _span("fetch-a", "retrieval", 1.2, 3.0, other="shown only with every attribute"),
    _span("fetch-b", "retrieval", 1.5, 3.5),
    _span("chat", "root", 5, 9, **{"gen_ai.request.model": "m-1"}),
]


@pytest.mark.parametrize("every", [False, True])
def test_the_trace_page_matches_its_snapshot(every: bool) -> None:
    from assay.render.trace import render_trace

    rows = span_tree(SPANS)
    head = "trace of c1 (trial 1) in run run-1: 5 spans"
    _check(render_trace(head, rows, every), f"trace{'-all' if every else ''}.txt")


def test_a_trace_with_its_transcript_and_traceback_matches_its_snapshot() -> None:
    from assay.diagnose import TraceView

    extra = {
        "transcript": {
            "messages": [
                {"role": "system", "content": "Answer from the context.\nCite sections."},
                {"role": "user", "content": "Can I return it? [s1] *now*"},
            ],
            "reply": "Yes, within 30 days [s1].\n",
            "finish_reason": "stop",
            "response_model": "m-1",
        },
        "traceback": 'Traceback (most recent call last):\n  File "t.py", line 3\nValueError: x\n',
    }
    view = TraceView.of("run-1", "c1", 2, tuple(span_tree(SPANS)), 5, extra)
    _check(render(view, "text"), "trace-transcript.txt")
    bare = TraceView.of("run-1", "c1", 1, (), 0, {"traceback": "Traceback: boom"})
    _check(render(bare, "text"), "trace-traceback-only.txt")
