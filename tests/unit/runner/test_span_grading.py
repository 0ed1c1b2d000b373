"""A stored record without a trajectory is judged on the one its received spans describe:
once the receiver has drained (``grade_from_spans``) and by ``regrade_run``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assay.cases import Case
from assay.grading import judge_record
from assay.grading.checks import AGENT_PROFILE, CompositeScorer
from assay.outcomes import (
    Answer,
    Record,
    Span,
    ToolCall,
    ToolStep,
    Trajectory,
    trajectory_extra,
    trajectory_of,
)
from assay.runner._regrade import regrade_run
from assay.runner._span_grading import grade_from_spans
from assay.store import RunInfo, RunStore, open_store

RUN = "20260101-120000-aaaaaa"
CASES = tuple(
    Case(
        id=f"C{i}",
        slice="s",
        question="Start a return for A1002.",
        expected_behavior="answer",
        expected_fact="return_started",
    )
    for i in (1, 2)
)
CLAIM = Answer(text="Done! Your return has been started.")


def _span(span_id: str, start: int, case_id: str, attributes: dict[str, Any], **more: Any) -> Span:
    return Span(
        trace_id=case_id.lower().rjust(32, "a"),
        span_id=span_id,
        name="op",
        start_ns=start,
        end_ns=start + 1000,
        attributes=attributes,
        case_id=case_id,
        trial=1,
        **more,
    )


def _failed_return(case_id: str) -> list[Span]:
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "start_return"}
    return [
        _span("01", 1, case_id, {"gen_ai.operation.name": "chat"}),
        _span("02", 2, case_id, tool, status="error", status_message="service unavailable"),
        _span("03", 3, case_id, {"gen_ai.operation.name": "chat"}),
    ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    """A run of C1 (no trajectory of its own) and C2 (its own trajectory: the tool
    succeeded), each judged as the run judged them, and spans saying the tool failed."""
    opened = open_store(f"sqlite:///{tmp_path}/runs.db")
    info = RunInfo(
        id=RUN,
        started_at=datetime(2026, 1, 1, 12, tzinfo=UTC),
        dataset_name="d",
        dataset_version="sha256:x",
        graders=[{"name": "composite", "version": "1"}],
        assay_version="0.1.0",
    )
    opened.create_run(info, CASES)
    own = Trajectory(
        steps=(ToolStep(call=ToolCall(name="start_return"), status="ok", result="started"),)
    )
    records = [
        Record(case_id="C1", outcome=CLAIM, extra={"kept": True}),
        Record(case_id="C2", outcome=CLAIM, extra={"trajectory": trajectory_extra(own)}),
    ]
    grader = CompositeScorer(AGENT_PROFILE)
    judged = [judge_record(c, r, grader) for c, r in zip(CASES, records, strict=True)]
    assert [j.status for j in judged] == ["ungraded", "passed"]  # C1: no trajectory yet
    opened.add_results(RUN, records, judged)
    opened.add_spans(RUN, [*_failed_return("C1"), *_failed_return("C2")])
    yield opened
    opened.close()


def test_the_drained_spans_judge_a_record_without_a_trajectory(store: RunStore) -> None:
    assert grade_from_spans(store, RUN, CompositeScorer(AGENT_PROFILE)) == 1
    c1, c2 = store.records(RUN)
    assert c1.extra["kept"] is True and c1.extra["trajectory_from"] == "spans"
    trajectory = trajectory_of(c1)
    assert trajectory is not None and trajectory.tool_steps[0].status == "error"
    assert "trajectory_from" not in c2.extra  # its own trajectory wins over its spans
    statuses = {j.case_id: j.status for j in store.judgments(RUN)}
    assert statuses == {"C1": "failed", "C2": "passed"}
    assert len(store.judgments(RUN)) == 2  # the judgment replaced, not added beside
    assert grade_from_spans(store, RUN, CompositeScorer(AGENT_PROFILE)) == 0


def test_a_regrade_builds_the_trajectory_from_the_stored_spans(store: RunStore) -> None:
    result = regrade_run(store, RUN, CompositeScorer(AGENT_PROFILE))
    statuses = {j.case_id: j.status for j in store.judgments(result.run_id)}
    assert statuses == {"C1": "failed", "C2": "passed"}
    (c1, _) = store.records(result.run_id)
    assert c1.extra["trajectory_from"] == "spans"
    (source, _) = store.records(RUN)
    assert "trajectory" not in source.extra  # the source run is left as it was
