"""The metrics a trend follows, what each reads from a run, and which cases it pairs on."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay.errors import AssayConfigError, did_you_mean
from assay.metrics import (
    ANSWERS,
    SLICE_CASES,
    IntervalSetting,
    Rate,
    clustered_rate,
    per_case,
    rate,
)
from assay.report import CaseRow, Report
from assay.trend._model import MetricKind

RATES = ("task_success", "answer_coverage", "answered_accuracy")
COST = "cost_usd"
LATENCY = "latency_p95_s"
METRICS = (*RATES, COST, LATENCY)

Pair = tuple[CaseRow, CaseRow]


@dataclass(frozen=True)
class Metric:
    """A metric by name: a report rate, ``<slice>.<rate>``, ``cost_usd`` or
    ``latency_p95_s``."""

    name: str
    kind: MetricKind
    rate_name: str | None = None
    slice: str | None = None

    @classmethod
    def parse(cls, name: str) -> Metric:
        """The metric ``name`` means; raises ``AssayConfigError`` naming the choices."""
        text = name.strip()
        if text in RATES:
            return cls(text, "rate", rate_name=text)
        if text == COST:
            return cls(text, "usd")
        if text == LATENCY:
            return cls(text, "seconds")
        if "." in text:
            slice_name, rate_name = text.rsplit(".", 1)
            if slice_name and rate_name in RATES:
                return cls(text, "rate", rate_name=rate_name, slice=slice_name)
        raise AssayConfigError(
            f"--metric {name!r}: unknown metric{did_you_mean(text, list(METRICS))}; choose "
            f"{', '.join(METRICS)}, or SLICE.RATE such as exception.task_success"
        )


@dataclass(frozen=True)
class Reading:
    """A metric's value in one run: a rate, or a number, or n/a with the reason."""

    value: float | None
    rate: Rate | None = None
    na_reason: str | None = None


def _passed(row: CaseRow) -> bool:
    return row.status == "passed"


def _answered(row: CaseRow) -> bool:
    return row.outcome == "answer"


def _slice_rate(rows: Sequence[CaseRow], rate_name: str, interval: IntervalSetting) -> Rate:
    """A slice's answer coverage or answered accuracy from its rows (clustered by case
    when there are several trials), as the report computes the whole run's."""
    trials = max((r.trial for r in rows), default=1)
    if rate_name == "answer_coverage":
        unit = SLICE_CASES if trials == 1 else "case-trials in the slice"
        scope, hit, names = list(rows), _answered, (unit, ANSWERS)
    else:
        scope, hit, names = [r for r in rows if _answered(r)], _passed, (ANSWERS, "passing answers")
    plain = rate(
        sum(1 for r in scope if hit(r)),
        len(scope),
        names[0],
        numerator_name=names[1],
        interval=interval,
    )
    if trials == 1 or not scope:
        return plain
    hits, sizes = per_case((r.id, hit(r)) for r in scope)
    est = clustered_rate(hits, sizes, interval=interval)
    return plain if est is None else plain.model_copy(update={"ci": est.ci})


def p95(values: Sequence[float]) -> float | None:
    """The 95th percentile by the nearest-rank method (None when there is no value)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def read(
    metric: Metric,
    report: Report,
    latencies_ms: Sequence[float],
    cost_usd: float | None,
    interval: IntervalSetting,
) -> Reading:
    """The metric's value in one run."""
    if metric.kind == "usd":
        if cost_usd is None:
            return Reading(None, na_reason="the run recorded no cost (no usage or no prices)")
        return Reading(cost_usd)
    if metric.kind == "seconds":
        found = p95(latencies_ms)
        if found is None:
            return Reading(None, na_reason="the run recorded no latency")
        return Reading(found / 1000)
    assert metric.rate_name is not None
    if metric.slice is None:
        found_rate: Rate = getattr(report, metric.rate_name)
    elif metric.slice not in report.slices:
        return Reading(None, na_reason=f"no slice {metric.slice!r} in this run")
    elif metric.rate_name == "task_success":
        found_rate = report.slices[metric.slice].task_success
    else:
        rows = [r for r in report.cases if r.slice == metric.slice and not r.synthetic]
        found_rate = _slice_rate(rows, metric.rate_name, interval)
    if found_rate.value is None:
        return Reading(None, rate=found_rate, na_reason=found_rate.na_reason)
    return Reading(found_rate.value, rate=found_rate)


def indicator(metric: Metric) -> tuple[Callable[[Pair], bool], Callable[[CaseRow], bool]]:
    """Which pairs a rate metric's paired test counts, and what counts as a success."""
    in_slice: Callable[[Pair], bool] = (
        (lambda p: True) if metric.slice is None else (lambda p: p[0].slice == metric.slice)
    )
    if metric.rate_name == "answer_coverage":
        return in_slice, _answered
    if metric.rate_name == "answered_accuracy":
        return (lambda p: in_slice(p) and _answered(p[0]) and _answered(p[1])), _passed
    return in_slice, _passed
