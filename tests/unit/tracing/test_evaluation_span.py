"""The ``assay.evaluation`` span is the evaluation record: case, grader version, labels,
judgment status (and score, and the reason when it is short)."""

from __future__ import annotations

import asyncio

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from assay.cases import Case
from assay.grading import Judgment
from assay.outcomes import Error, Record
from assay.runner import Execution, RunOptions, WorkItem, run_item
from assay.runner._tracing import REASON_LIMIT, judgment_attributes
from assay.targets.scripted import ScriptedTarget

CASE = Case(id="E2", slice="exception", question="q", expected_behavior="answer", expected_fact="f")


class LabellingGrader:
    """Fails every answer with two labels and a long reason."""

    name = "labeller"
    version = "3"

    def grade(self, case: Case, record: Record) -> Judgment:
        return Judgment(
            case_id=case.id,
            trial=record.trial,
            status="failed",
            reason="x" * 500,
            grader=self.name,
            grader_version=self.version,
            score=0.5,
            labels=("overgeneralised", "missing_condition"),
        )


def run_traced(target: ScriptedTarget) -> dict[str, ReadableSpan]:
    """Run CASE once through the runner's item path; its spans by name."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    ex = Execution(target, RunOptions(retries=0), LabellingGrader(), "r1", "v", tracer)
    asyncio.run(run_item(ex, WorkItem(0, CASE, 1)))
    return {s.name: s for s in exporter.get_finished_spans()}


ANSWERING = {"kind": "answer", "fact": "g"}


def test_the_request_span_names_run_and_configuration_the_evaluation_span_the_judgment() -> None:
    spans = run_traced(ScriptedTarget({}, default=ANSWERING))
    root = dict(spans["assay.request"].attributes or {})
    assert root["assay.run.id"] == "r1" and root["assay.trial"] == 1
    assert root["assay.config.version"] == "v"
    span = spans["assay.evaluation"]
    assert span.parent is not None and span.parent.span_id == spans["assay.request"].context.span_id
    attributes = dict(span.attributes or {})
    assert attributes["assay.case.id"] == "E2"
    assert attributes["assay.grader.version"] == "3"
    assert attributes["assay.judgment.status"] == "failed"
    assert attributes["assay.judgment.labels"] == ("overgeneralised", "missing_condition")
    assert attributes["assay.judgment.score"] == 0.5
    reason = str(attributes["assay.judgment.reason"])
    assert len(reason) == REASON_LIMIT and reason.endswith("…")


def test_a_short_reason_is_kept_whole_and_empty_labels_are_left_out() -> None:
    judgment = Judgment(
        case_id="E1",
        status="passed",
        reason="answered the expected fact",
        grader="s",
        grader_version="1",
    )
    attributes = judgment_attributes(judgment)
    assert attributes["assay.judgment.reason"] == "answered the expected fact"
    assert "assay.judgment.labels" not in attributes
    assert "assay.judgment.score" not in attributes


def test_an_error_outcome_marks_the_request_span_failed_with_its_error_type() -> None:
    spans = run_traced(ScriptedTarget({"E2": Error(error_class="http_5xx", message="HTTP 503")}))
    root = spans["assay.request"]
    assert root.status.status_code is StatusCode.ERROR
    assert root.status.description == "http_5xx: HTTP 503"
    attributes = dict(root.attributes or {})
    assert (attributes["error.type"], attributes["assay.outcome.kind"]) == ("http_5xx", "error")
    assert dict(spans["assay.evaluation"].attributes or {})["assay.judgment.status"] == "error"


def test_an_answer_leaves_the_request_span_status_unset() -> None:
    root = run_traced(ScriptedTarget({}, default=ANSWERING))["assay.request"]
    assert root.status.status_code is StatusCode.UNSET
    assert "error.type" not in (root.attributes or {})
    assert (root.attributes or {})["assay.outcome.kind"] == "answer"
