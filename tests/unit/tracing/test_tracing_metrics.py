"""A run's aggregate metrics: outcomes by status and latency, low-cardinality dimensions
only, exported over OTLP/HTTP to ``/v1/metrics``."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from tests.otlp_receiver import Receiver, metric_points, metric_resources

from assay.cases import Case
from assay.grading import Judgment
from assay.outcomes import Abstain, Answer, Error, Record
from assay.tracing import DIMENSIONS, dimensions, otlp_metrics_url, start_metrics

CASE = Case(
    id="E5",
    slice="standard",
    question="How long is the defect window?",
    expected_behavior="answer",
    expected_fact="defect_window_7_days",
)


def judged(status: str) -> Judgment:
    return Judgment(
        case_id="E5", trial=1, status=status, reason="r", grader="structured", grader_version="1"
    )  # type: ignore[arg-type]


def points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    data = reader.get_metrics_data()
    assert data is not None
    found: dict[str, list[Any]] = {}
    for resource_metrics in data.resource_metrics:
        for scope in resource_metrics.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


def test_an_error_outcome_carries_its_error_class_and_nothing_case_specific() -> None:
    record = Record(case_id="E5", trial=1, outcome=Error(error_class="exception:LookupError"))
    found = dimensions(CASE, record, judged("error"), "sha256:abc")
    assert found == {
        "assay.judgment.status": "error",
        "error.type": "exception:LookupError",
        "assay.case.slice": "standard",
        "assay.config.version": "sha256:abc",
    }
    assert set(found) <= set(DIMENSIONS)


def test_no_error_type_without_an_error_and_a_status_even_without_a_judgment() -> None:
    record = Record(case_id="E5", trial=1, outcome=Answer(fact="defect_window_7_days"))
    assert "error.type" not in dimensions(CASE, record, judged("passed"), "v")
    assert dimensions(CASE, record, None, "v")["assay.judgment.status"] == "ungraded"
    errored = Record(case_id="E5", trial=1, outcome=Error())
    assert dimensions(CASE, errored, None, "v")["error.type"] == "_OTHER"


def test_outcomes_are_counted_by_status_and_latency_is_a_histogram_in_seconds() -> None:
    reader = InMemoryMetricReader()
    metrics = start_metrics("sha256:abc", readers=[reader])
    assert metrics is not None
    for status, outcome, latency in [
        ("passed", Answer(fact="defect_window_7_days"), 120.0),
        ("passed", Answer(fact="defect_window_7_days"), 80.0),
        ("failed", Abstain(), 50.0),
    ]:
        record = Record(case_id="E5", trial=1, outcome=outcome, latency_ms=latency)
        metrics.record(CASE, record, judged(status))
    found = points(reader)
    metrics.close()
    counts = {p.attributes["assay.judgment.status"]: p.value for p in found["assay.case_trials"]}
    assert counts == {"passed": 2, "failed": 1}
    by_status = {p.attributes["assay.judgment.status"]: p for p in found["assay.request.duration"]}
    assert by_status["passed"].count == 2
    assert abs(by_status["passed"].sum - 0.2) < 1e-9
    assert by_status["passed"].explicit_bounds[0] == 0.01


def test_no_readers_and_no_endpoint_means_no_metrics() -> None:
    assert start_metrics("v") is None


def test_metrics_reach_the_collector_at_v1_metrics(otlp_receiver: Receiver) -> None:
    endpoint = f"http://127.0.0.1:{otlp_receiver.server_address[1]}"
    metrics = start_metrics("sha256:abc", otlp_endpoint=endpoint)
    assert metrics is not None
    record = Record(case_id="E5", trial=1, outcome=Error(error_class="timeout"), latency_ms=9.0)
    metrics.record(CASE, record, judged("error"))
    metrics.close()  # the final export happens on close
    received = metric_points(otlp_receiver)
    assert ("assay.case_trials", CASE_ERROR, 1.0) in received
    assert ("assay.request.duration", CASE_ERROR, 1.0) in received
    (resource,) = metric_resources(otlp_receiver)
    assert resource["service.name"] == "assay"
    assert "assay.run.id" not in resource
    assert otlp_receiver.requests == []  # nothing went to /v1/traces


CASE_ERROR = {
    "assay.judgment.status": "error",
    "error.type": "timeout",
    "assay.case.slice": "standard",
    "assay.config.version": "sha256:abc",
}


def test_the_metrics_path_replaces_a_traces_path() -> None:
    assert otlp_metrics_url("http://h:4318/") == "http://h:4318/v1/metrics"
    assert otlp_metrics_url("http://h:4318/v1/traces") == "http://h:4318/v1/metrics"
    assert otlp_metrics_url("http://h:4318/v1/metrics") == "http://h:4318/v1/metrics"
