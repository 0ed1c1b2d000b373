"""A run's aggregate metrics: case-trial outcomes and request latency as OpenTelemetry
metrics, with low-cardinality dimensions only.

Case ids, run ids, trace ids, questions and section ids never become dimensions: they
stay in spans and in the run store. A dimension is one of ``DIMENSIONS``, whose values come
from small closed sets (a status, an error class, a slice, a configuration version).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from opentelemetry.metrics import Counter, Histogram
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource

from assay._version import __version__
from assay.cases import Case
from assay.grading import Judgment, unjudged_status
from assay.outcomes import Error, Record, span_names
from assay.tracing._otlp import otlp_exporter

OUTCOMES = "assay.case_trials"
LATENCY = "assay.request.duration"
STATUS = span_names.JUDGMENT_STATUS
ERROR_TYPE = "error.type"
SLICE = span_names.CASE_SLICE
CONFIG_VERSION = span_names.CONFIG_VERSION
DIMENSIONS = (STATUS, ERROR_TYPE, SLICE, CONFIG_VERSION)
# The GenAI conventions' advice for gen_ai.client.operation.duration, in seconds.
LATENCY_BUCKETS_S = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48)


def dimensions(
    case: Case, record: Record, judgment: Judgment | None, config_version: str
) -> dict[str, str]:
    """The metric attributes of one finished case-trial (``error.type`` only for errors)."""
    outcome = record.outcome
    status = judgment.status if judgment is not None else unjudged_status(record)
    attributes = {STATUS: status, SLICE: case.slice, CONFIG_VERSION: config_version}
    if isinstance(outcome, Error):
        attributes[ERROR_TYPE] = outcome.error_class or "_OTHER"
    return attributes


@dataclass
class RunMetrics:
    """The instruments of one run; ``record`` each finished case-trial, then ``close``."""

    provider: MeterProvider
    outcomes: Counter
    latency: Histogram
    config_version: str

    def record(self, case: Case, record: Record, judgment: Judgment | None) -> None:
        attributes = dimensions(case, record, judgment, self.config_version)
        self.outcomes.add(1, attributes)
        if record.latency_ms is not None:
            self.latency.record(record.latency_ms / 1000, attributes)

    def close(self) -> None:
        """Export what is left and stop (the last export happens here)."""
        self.provider.shutdown()


def start_metrics(
    config_version: str,
    otlp_endpoint: str | None = None,
    readers: Sequence[MetricReader] = (),
) -> RunMetrics | None:
    """A run's metrics, exported to ``otlp_endpoint`` and/or read by ``readers``; None
    when there is nowhere to send them.

    The meter provider is private to the run (the global one is never set). Its resource
    names the service and this process (``service.instance.id``, a fresh UUID, so that
    concurrent runs' cumulative series stay apart), never the run.
    """
    chosen = list(readers)
    if otlp_endpoint:
        chosen.append(PeriodicExportingMetricReader(otlp_exporter(otlp_endpoint, "metrics")))
    if not chosen:
        return None
    resource = Resource(
        {
            "service.name": "assay",
            "service.version": __version__,
            "service.instance.id": str(uuid.uuid4()),
        }
    )
    provider = MeterProvider(metric_readers=chosen, resource=resource)
    meter = provider.get_meter("assay", __version__)
    outcomes = meter.create_counter(
        OUTCOMES, unit="{case_trial}", description="Case-trials finished, by judgment status."
    )
    latency = meter.create_histogram(
        LATENCY,
        unit="s",
        description="Time the target took to answer one case-trial (final attempt).",
        explicit_bucket_boundaries_advisory=LATENCY_BUCKETS_S,
    )
    return RunMetrics(provider, outcomes, latency, config_version)
