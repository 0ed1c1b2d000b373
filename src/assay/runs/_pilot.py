"""A stored run as a plan's pilot: its rate, how its trials of one case agree, and its
usage per call, read from its report."""

from __future__ import annotations

from collections import defaultdict

from assay.load import PriceTable
from assay.metrics import design_effect, trial_discordance
from assay.planning import Pilot
from assay.runs._report import report_for_run
from assay.store import RunStore


def pilot_of(store: RunStore, run_id: str, *, prices: PriceTable | None = None) -> Pilot:
    """What stored run ``run_id`` (an id or a unique prefix) measured, for a plan: over its
    real cases' recorded case-trials (a missing trial is no evidence), task success, the
    design effect and the share of disagreeing pairs of trials of one case; per call that
    reported it, tokens, cost (priced with ``prices`` when given, else with the run's own
    table) and the mean latency."""
    report = report_for_run(store, run_id, prices=prices)
    passes: dict[str, int] = defaultdict(int)
    trials: dict[str, int] = defaultdict(int)
    latencies: list[float] = []
    for row in report.cases:
        if row.synthetic or row.status == "missing":
            continue
        trials[row.id] += 1
        passes[row.id] += row.status == "passed"
        if row.latency_ms is not None:
            latencies.append(row.latency_ms / 1000)
    ids = list(trials)
    units = sum(trials.values())
    hits = [passes[i] for i in ids]
    sizes = [trials[i] for i in ids]
    most = max(sizes, default=0)
    usage = report.usage
    calls = usage.called if usage is not None else 0

    def per_call(total: float | None, reported: int) -> float | None:
        return None if total is None or reported <= 0 else total / reported

    return Pilot(
        run_id=report.run_id or run_id,
        cases=len(ids),
        trials=most,
        rate=sum(hits) / units if units else 0.0,
        design_effect=design_effect(hits, sizes) if most > 1 else None,
        discordance=trial_discordance(hits, sizes) if most > 1 else None,
        calls=calls,
        input_tokens_per_call=(
            per_call(usage.input_tokens, usage.input_reported) if usage else None
        ),
        output_tokens_per_call=(
            per_call(usage.output_tokens, usage.output_reported) if usage else None
        ),
        cost_per_call_usd=per_call(usage.cost_usd, usage.cost_reported) if usage else None,
        latency_s=sum(latencies) / len(latencies) if latencies else None,
    )
