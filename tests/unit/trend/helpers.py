"""Suite runs built in memory (no store), for the trend's core tests."""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

from tests.trend_stores import START

from assay.cases import Dataset
from assay.grading import StructuredGrader, grade
from assay.outcomes import Answer, Record, Results
from assay.report import build_report
from assay.trend import SuiteRun


def suite_run(
    run_id: str,
    day: int,
    data: Dataset,
    passing: Collection[int],
    *,
    config: str = "c1",
    version: str | None = None,
    trials: int = 1,
    cost_usd: float | None = None,
    latencies_ms: tuple[float, ...] = (),
) -> SuiteRun:
    """A completed run whose cases numbered in ``passing`` pass (every trial), the others
    fail; ``version`` overrides the dataset version the run claims."""
    records = [
        Record(
            case_id=case.id,
            trial=trial,
            outcome=Answer(fact=case.expected_fact if i in passing else "wrong"),
        )
        for i, case in enumerate(data.cases)
        for trial in range(1, trials + 1)
    ]
    graded = grade(data.cases, Results(tuple(records)), StructuredGrader(), trials=trials)
    return SuiteRun(
        id=run_id,
        started_at=START + timedelta(days=day),
        status="completed",
        dataset_name=data.name,
        dataset_version=version or data.version,
        config_hash=config,
        report=build_report(data, graded, run_id=run_id),
        tags=(),
        latencies_ms=latencies_ms,
        cost_usd=cost_usd,
    )
