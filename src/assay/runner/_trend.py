"""A suite's trend read from the run store: its runs, their reports, latencies and cost."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from assay.cases import content_hash
from assay.errors import AssayConfigError, AssayInputError, did_you_mean
from assay.gates import LAST, GateResult, parse_trend_rule, trend_gate
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.report import Report
from assay.runs import report_for_run
from assay.store import TAGS_KEY, RunInfo
from assay.trend import Metric, SuiteRun, Trend, build_trend

_SPAN = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime) -> datetime:
    """The start of the period ``text`` names: ``30d``, ``12h``, ``2w``, ``90m`` before
    ``now``, or an ISO date or time (UTC unless it says otherwise)."""
    found = _SPAN.match(text)
    if found:
        return now - timedelta(**{_UNITS[found[2]]: int(found[1])})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise AssayConfigError(
            f"--since {text!r}: give a period such as 30d, 12h, 2w or 90m, or a date such as "
            "2026-11-01"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def config_hash(info: RunInfo) -> str:
    """What identifies a run's configuration: target, graders, trials, trial policy and
    metadata (without tags). Runs with equal hashes on one dataset version are repeats."""
    metadata = {k: v for k, v in info.metadata.items() if k != TAGS_KEY}
    return content_hash(
        {
            "target_hash": info.target_hash,
            "graders": info.graders,
            "trials": info.trials,
            "trial_policy": info.trial_policy,
            "metadata": metadata,
        }
    )


def suite_names(store: Any) -> list[str]:
    """Every suite with a stored run, sorted."""
    return sorted({n for n in (i.suite_name for i in store.list_runs()) if n is not None})


def suite_runs(store: Any, suite: str, since: datetime | None = None) -> list[RunInfo]:
    """The suite's stored runs (oldest first), from ``since`` when given; raises
    ``AssayInputError`` naming the known suites when the suite has no run at all."""
    every = [info for info in store.list_runs() if info.suite_name == suite]
    if not every:
        names = suite_names(store)
        known = (
            f"; suites with runs: {', '.join(names)}" if names else "; the store has no suite run"
        )
        raise AssayInputError(
            f"no run of suite {suite!r} in the store {store.url}{did_you_mean(suite, names)}"
            f"{known} (a suite is named by its `name:`, else its file name without extension)"
        )
    chosen = [i for i in every if since is None or i.started_at >= since]
    return sorted(chosen, key=lambda i: (i.started_at, i.id))


def _cost(info: RunInfo) -> float | None:
    found = (info.summary or {}).get("cost_usd")
    return float(found) if isinstance(found, int | float) and not isinstance(found, bool) else None


def suite_run(store: Any, info: RunInfo, report: Report, metric: Metric | None = None) -> SuiteRun:
    """``info`` and its report as the trend needs them (latencies read only when the
    metric is latency)."""
    latencies: tuple[float, ...] = ()
    if metric is not None and metric.kind == "seconds":
        latencies = tuple(r.latency_ms for r in store.records(info.id) if r.latency_ms is not None)
    return SuiteRun(
        id=info.id,
        started_at=info.started_at,
        status=info.status,
        dataset_name=info.dataset_name,
        dataset_version=info.dataset_version,
        config_hash=config_hash(info),
        report=report,
        git_commit=info.git_commit,
        tags=tuple(info.tags),
        latencies_ms=latencies,
        cost_usd=_cost(info),
    )


def trend_for_suite(
    store: Any,
    suite: str,
    metric: str = "task_success",
    *,
    since: datetime | None = None,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    reports: dict[str, Report] | None = None,
) -> Trend:
    """The trend of ``metric`` over the suite's stored runs (from ``since``). ``reports``
    may hold reports already built (by run id, at this confidence and method)."""
    chosen = Metric.parse(metric)
    runs = []
    for info in suite_runs(store, suite, since):
        report = (reports or {}).get(info.id) or report_for_run(store, info.id, interval=interval)
        runs.append(suite_run(store, info, report, chosen))
    return build_trend(suite, runs, chosen, interval=interval, since=since)


def gate_suite(
    store: Any,
    suite: str,
    rules: list[str],
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> tuple[SuiteRun | None, list[GateResult]]:
    """``rules`` (``assay gate --trend``) applied to the suite's newest run that is not
    still running, against the run before it (``last``) and the tagged runs they name."""
    parsed = [parse_trend_rule(text) for text in rules]
    infos = [i for i in suite_runs(store, suite) if i.status != "running"]
    named = {r.reference for r in parsed if r.reference not in (None, LAST)}
    chosen = infos[-2:]
    tagged: dict[str, RunInfo] = {}
    for info in infos:
        for tag in info.tags:
            if tag in named:
                tagged[tag] = info
    cache: dict[str, SuiteRun] = {}

    def load(info: RunInfo) -> SuiteRun:
        if info.id not in cache:
            report = report_for_run(store, info.id, interval=interval)
            cache[info.id] = suite_run(store, info, report)
        return cache[info.id]

    runs = [load(info) for info in chosen]
    return trend_gate(parsed, runs, {tag: load(info) for tag, info in tagged.items()})
