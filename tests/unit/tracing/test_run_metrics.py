"""A real run's metrics: one count per case-trial, and no high-cardinality value (case id,
run id, trace id, question, section id) as a metric dimension."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from tests.conftest import EXAMPLES

from assay.runner import Overrides, RunControl, run_suite
from assay.store import RunStore, open_store
from assay.tracing import DIMENSIONS


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


def _metrics(reader: InMemoryMetricReader) -> tuple[list[Any], list[dict[str, Any]]]:
    data = reader.get_metrics_data()
    assert data is not None
    found = [
        metric
        for resource_metrics in data.resource_metrics
        for scope in resource_metrics.scope_metrics
        for metric in scope.metrics
    ]
    resources = [dict(r.resource.attributes) for r in data.resource_metrics]
    return found, resources


def _high_cardinality(store: RunStore, run_id: str) -> set[str]:
    """Every value that identifies one case, trial, trace or document in the run."""
    values = {run_id}
    for case in store.load_dataset(run_id):
        values |= {case.id, case.question, *case.metadata.get("evidence", [])}
    values |= {r.trace_id for r in store.records(run_id) if r.trace_id}
    for span in store.spans(run_id):
        values |= {span.trace_id, span.span_id}
        for key in ("assay.section.id", "assay.retrieval.candidate_ids"):
            found = span.attributes.get(key)
            values |= set(found) if isinstance(found, list) else {str(found)} if found else set()
    return values


def test_a_demo_run_counts_every_case_trial_on_low_cardinality_dimensions(
    store: RunStore,
) -> None:
    reader = InMemoryMetricReader()
    control = RunControl(metric_readers=(reader,))
    result = run_suite(EXAMPLES / "demo" / "v1.yaml", store, control=control)
    metrics, resources = _metrics(reader)

    by_name = {m.name: m for m in metrics}
    outcomes = by_name["assay.case_trials"].data.data_points
    counted: Counter[str] = Counter()
    for point in outcomes:
        counted[point.attributes["assay.judgment.status"]] += point.value
    statuses = result.report.statuses
    assert counted == {k: v for k, v in statuses.model_dump().items() if v and k != "total"}
    errors = [p for p in outcomes if "error.type" in p.attributes]
    assert [p.attributes["error.type"] for p in errors] == ["exception:LookupError"]
    latency = by_name["assay.request.duration"].data.data_points
    assert sum(p.count for p in latency) == sum(counted.values()) == 22

    forbidden = _high_cardinality(store, result.run_id)
    assert "E2" in forbidden and "acme/custom-exception" in forbidden
    for metric in metrics:
        for point in metric.data.data_points:
            assert set(point.attributes) <= set(DIMENSIONS), metric.name
            assert not set(map(str, point.attributes.values())) & forbidden, point.attributes
    for resource in resources:
        assert not set(map(str, resource.values())) & forbidden
        assert "assay.run.id" not in resource


def test_metrics_do_not_depend_on_tracing(store: RunStore) -> None:
    reader = InMemoryMetricReader()
    control = RunControl(metric_readers=(reader,))
    suite = EXAMPLES / "demo" / "v1.yaml"
    result = run_suite(suite, store, overrides=Overrides(trace=False), control=control)
    assert store.spans(result.run_id) == []
    metrics, _ = _metrics(reader)
    outcomes = next(m for m in metrics if m.name == "assay.case_trials").data.data_points
    assert sum(p.value for p in outcomes) == 22


def test_no_reader_and_no_collector_records_no_metrics(store: RunStore) -> None:
    result = run_suite(EXAMPLES / "demo" / "v1.yaml", store, control=RunControl())
    assert result.status == "completed"  # the run works the same without metrics
