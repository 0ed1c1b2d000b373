"""Building a suite's trend: values in time order, paired changes, run-to-run noise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from assay._version import __version__
from assay.compare import ComparisonRefusedError, RunSide, pair_runs
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, interval_text, mcnemar_exact, percent
from assay.report import CaseRow, Report
from assay.trend._metric import Metric, Pair, Reading, indicator, read
from assay.trend._model import Change, DatasetChange, Point, ReplicateGroup, Trend

RULE = (
    "A change between consecutive runs is flagged when (1) both ran the same dataset "
    "version with identical case definitions, so their cases pair; (2) the exact McNemar "
    "test on the pairs that changed gives p < alpha (1 - confidence), fixed and broken "
    "pointing the same way as the change of the rate; and (3) the change is "
    "larger than the run-to-run spread (max - min) of the earlier run's configuration on "
    "that dataset version, over its repeated runs up to the earlier run, when there are at "
    "least two. Cost and latency are shown, never flagged: they have no paired test."
)


@dataclass(frozen=True)
class SuiteRun:
    """One stored run of the suite, as the trend needs it."""

    id: str
    started_at: datetime
    status: str
    dataset_name: str
    dataset_version: str
    config_hash: str
    report: Report
    git_commit: str | None = None
    tags: tuple[str, ...] = ()
    latencies_ms: tuple[float, ...] = field(default=())
    cost_usd: float | None = None


def _first_rows(report: Report) -> dict[str, CaseRow]:
    found: dict[str, CaseRow] = {}
    for row in report.cases:
        found.setdefault(row.id, row)
    return found


def dataset_change(before: Report, after: Report) -> DatasetChange:
    """Cases added, removed, changed and unchanged from one run's dataset to another's."""
    old, new = _first_rows(before), _first_rows(after)
    both = old.keys() & new.keys()
    changed = sum(
        1
        for cid in both
        if (old[cid].case_hash, old[cid].source_revision)
        != (new[cid].case_hash, new[cid].source_revision)
    )
    return DatasetChange(
        added=len(new.keys() - old.keys()),
        removed=len(old.keys() - new.keys()),
        changed=changed,
        unchanged=len(both) - changed,
    )


def _pairs(before: SuiteRun, after: SuiteRun) -> tuple[tuple[Pair, ...] | None, str | None]:
    """The paired rows, or None and why the runs cannot be paired."""
    if before.dataset_version != after.dataset_version:
        return None, "dataset version changed"
    sides = [RunSide.from_report(r.report, ref=r.id) for r in (before, after)]
    try:
        pairing = pair_runs(sides[0], sides[1])
    except ComparisonRefusedError as err:
        cases = [d for d in err.differences if not d.startswith("dataset version")]
        more = f" (and {len(cases) - 1} more)" if len(cases) > 1 else ""
        return None, f"not pairable: {(cases or list(err.differences))[0]}{more}"
    differ = sorted({b.id for b, c in pairing.pairs if b.case_hash != c.case_hash})
    if differ:
        return None, f"case definitions differ ({len(differ)} cases, e.g. {differ[0]})"
    return pairing.pairs, None


def paired_test(
    pairs: Sequence[Pair], metric: Metric
) -> tuple[int, int, float, Literal["case-trials", "cases"], int]:
    """Fixed, broken, exact McNemar p-value, unit and pair count for a rate metric.

    With one trial per case the unit is the case-trial; with several, the case: a case is
    fixed when more of its trials succeed in the later run (the exact sign test), as
    ``assay compare`` counts them.
    """
    scope, hit = indicator(metric)
    chosen = [p for p in pairs if scope(p)]
    if max((b.trial for b, _ in chosen), default=1) == 1:
        fixed = sum(1 for b, c in chosen if not hit(b) and hit(c))
        broken = sum(1 for b, c in chosen if hit(b) and not hit(c))
        return fixed, broken, mcnemar_exact(fixed, broken), "case-trials", len(chosen)
    per_case: dict[str, list[int]] = {}
    for b, c in chosen:
        per_case.setdefault(b.id, [0, 0])
        per_case[b.id][0] += hit(b)
        per_case[b.id][1] += hit(c)
    fixed = sum(1 for v in per_case.values() if v[1] > v[0])
    broken = sum(1 for v in per_case.values() if v[1] < v[0])
    return fixed, broken, mcnemar_exact(fixed, broken), "cases", len(chosen)


def _spread(history: Sequence[tuple[SuiteRun, Reading]]) -> tuple[float | None, int]:
    """Max - min over the values of ``history`` (None with fewer than two)."""
    values = [reading.value for _, reading in history if reading.value is not None]
    if len(values) < 2:
        return None, len(values)
    return max(values) - min(values), len(values)


def _shown(metric: Metric, reading: Reading) -> str:
    if reading.value is None:
        return f"n/a ({reading.na_reason})"
    if reading.rate is not None:
        rate = reading.rate
        fraction = f"{rate.numerator}/{rate.denominator}"
        return f"{fraction} ({percent(reading.value)}) {interval_text(rate.ci)}"
    if metric.kind == "usd":
        return f"${reading.value:.4f}"
    return f"{reading.value:.3f} s"


def delta_text(metric: Metric, delta: float) -> str:
    """'+4.0 pts', '+$0.0100' or '-0.120 s'."""
    if metric.kind == "rate":
        return f"{delta * 100:+.1f} pts"
    if metric.kind == "usd":
        return f"{'+' if delta >= 0 else '-'}${abs(delta):.4f}"
    return f"{delta:+.3f} s"


def _verdict(metric: Metric, change: Change, alpha: float) -> str:
    if not change.paired:
        return f"not paired: {change.break_reason}"
    moved = "" if change.delta is None else delta_text(metric, change.delta)
    if metric.kind != "rate":
        return f"{moved or 'n/a'}; {metric.name} is shown, never flagged (no paired test)"
    if change.delta is None:
        return "n/a: the rate is unavailable in one of the runs"
    unit = "" if change.unit == "case-trials" else " cases"
    head = f"{moved}; {change.fixed}{unit} fixed, {change.broken}{unit} broken"
    assert change.p_value is not None
    head += f", p = {change.p_value:.2g}"
    if change.flagged:
        way = "better" if change.delta > 0 else "worse"
        return f"{head}: {way} beyond noise"
    if change.p_value >= alpha:
        return f"{head}: within noise (p >= {alpha:g})"
    return (
        f"{head}: within the run-to-run spread ({delta_text(metric, change.spread or 0.0)} "
        f"over {change.spread_runs} runs)"
    )


def _change(
    metric: Metric,
    index: int,
    readings: Sequence[tuple[SuiteRun, Reading]],
    alpha: float,
) -> Change:
    before, before_reading = readings[index - 1]
    after, after_reading = readings[index]
    pairs, why = _pairs(before, after)
    delta = (
        after_reading.value - before_reading.value
        if after_reading.value is not None and before_reading.value is not None
        else None
    )
    history = [
        (run, reading)
        for run, reading in readings[:index]
        if (run.dataset_version, run.config_hash) == (before.dataset_version, before.config_hash)
    ]
    spread, spread_runs = _spread(history)
    common = {
        "previous": before.id,
        "config_changed": before.config_hash != after.config_hash,
        "delta": delta,
        "spread": spread,
        "spread_runs": spread_runs,
        "verdict": "",
    }
    if pairs is None:
        shift = (
            dataset_change(before.report, after.report)
            if before.dataset_version != after.dataset_version
            else None
        )
        change = Change(paired=False, break_reason=why, dataset_change=shift, **common)
    elif metric.kind != "rate":
        change = Change(paired=True, pairs=len(pairs), **common)
    else:
        fixed, broken, p, unit, count = paired_test(pairs, metric)
        # The paired counts and the rates must point the same way (they can differ when
        # the denominator moves, as answered accuracy's does).
        flagged = (
            delta is not None
            and p < alpha
            and (fixed - broken) * delta > 0
            and (spread is None or abs(delta) > spread)
        )
        change = Change(
            paired=True,
            pairs=count,
            unit=unit,
            fixed=fixed,
            broken=broken,
            p_value=p,
            flagged=flagged,
            **common,
        )
    return change.model_copy(update={"verdict": _verdict(metric, change, alpha)})


def _groups(readings: Sequence[tuple[SuiteRun, Reading]]) -> list[ReplicateGroup]:
    by_key: dict[tuple[str, str], list[tuple[SuiteRun, Reading]]] = {}
    for run, reading in readings:
        by_key.setdefault((run.dataset_version, run.config_hash), []).append((run, reading))
    groups = []
    for (version, config), members in by_key.items():
        if len(members) < 2:
            continue
        values = [r.value for _, r in members if r.value is not None]
        spread, _ = _spread(members)
        groups.append(
            ReplicateGroup(
                dataset_version=version,
                config_hash=config,
                runs=[run.id for run, _ in members],
                low=min(values) if values else None,
                high=max(values) if values else None,
                spread=spread,
            )
        )
    return groups


def build_trend(
    suite: str,
    runs: Sequence[SuiteRun],
    metric: Metric | str = "task_success",
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    since: datetime | None = None,
) -> Trend:
    """The trend of ``metric`` over ``runs`` (sorted here by start time, then id)."""
    chosen = metric if isinstance(metric, Metric) else Metric.parse(metric)
    alpha = round(1 - interval.confidence, 12)
    ordered = sorted(runs, key=lambda r: (r.started_at, r.id))
    readings = [
        (run, read(chosen, run.report, run.latencies_ms, run.cost_usd, interval)) for run in ordered
    ]
    counts: dict[tuple[str, str], int] = {}
    for run in ordered:
        key = (run.dataset_version, run.config_hash)
        counts[key] = counts.get(key, 0) + 1
    points = []
    for index, (run, reading) in enumerate(readings):
        ci = reading.rate.ci if reading.rate is not None else None
        points.append(
            Point(
                run_id=run.id,
                started_at=run.started_at.isoformat(),
                status=run.status,
                dataset_name=run.dataset_name,
                dataset_version=run.dataset_version,
                config_hash=run.config_hash,
                git_commit=run.git_commit,
                tags=list(run.tags),
                value=reading.value,
                rate=reading.rate,
                low=ci[0] if ci else None,
                high=ci[1] if ci else None,
                shown=_shown(chosen, reading),
                na_reason=reading.na_reason,
                replicates=counts[(run.dataset_version, run.config_hash)],
                change=_change(chosen, index, readings, alpha) if index else None,
            )
        )
    rate_of = readings[-1][1].rate if readings else None
    return Trend(
        assay_version=__version__,
        suite=suite,
        metric=chosen.name,
        kind=chosen.kind,
        denominator_name=rate_of.denominator_name if rate_of is not None else None,
        confidence=interval.confidence,
        method=interval.method,
        alpha=alpha,
        since=since.isoformat() if since is not None else None,
        points=points,
        groups=_groups(readings),
        rule=RULE,
        summary=_summary(points),
    )


def _summary(points: Sequence[Point]) -> str:
    if not points:
        return "no runs of this suite in the store for this period"
    last = points[-1]
    if last.change is None:
        return f"one run ({last.run_id}): nothing to compare yet"
    return f"latest run {last.run_id} vs {last.change.previous}: {last.change.verdict}"
