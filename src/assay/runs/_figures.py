"""A stored run's report without case rows, from what the database counts: the figures a
gate reads, for a million case-trials without making a million records.

Made only when every figure can be counted: no judgment labels (judge dimensions and
usage), no response cache and no agent trajectories. Otherwise None, and the report is
built by grading.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from sqlalchemy import select, text

from assay._version import __version__
from assay.errors import StoreError
from assay.load import PriceTable
from assay.metrics import (
    DEFAULT_INTERVAL,
    Counts,
    IntervalSetting,
    TrialPolicy,
    UncountedStatus,
    summary_from_counts,
    summary_of_counts,
)
from assay.report import (
    DatasetChange,
    DatasetInfo,
    GraderInfo,
    HeldoutNote,
    Latency,
    Price,
    PriceInfo,
    Report,
    SplitBlock,
    SyntheticSection,
    UsageSummary,
    budget_settings,
    sequential_settings,
    split_block,
)
from assay.runs._outcomes import outcome_damage
from assay.runs._run_settings import UnavailableGrader, run_grader, run_metadata, trial_policy
from assay.runs._summary import CountedRun, case_counts, status_damage
from assay.store import DamagedRow, Group, RunInfo, RunStore, records, row_failure, shown

_USAGE = """
SELECT COUNT(*),
       SUM(CASE WHEN input_tokens IS NOT NULL OR output_tokens IS NOT NULL THEN 1 ELSE 0 END),
       COUNT(input_tokens), SUM(input_tokens), COUNT(output_tokens), SUM(output_tokens),
       COUNT(latency_ms), MAX(latency_ms),
       SUM(CASE WHEN extra LIKE '%"cache"%' THEN 1 ELSE 0 END)
FROM records WHERE run_id = :run
"""
_TRAJECTORIES = """
SELECT 1 FROM records WHERE run_id = :run AND extra LIKE '%"trajectory"%' LIMIT 1
"""
"""A record that may carry an agent's trajectory: its counts are read off each one."""
# SQLite stores any value in any column and sums a text as 0: its SUM is a fraction as
# soon as one value is not a whole number (or NULL), and its MAX of a column holding a
# text or bytes is that value (they sort after numbers), so the sums say themselves
# whether a record must be looked for (PostgreSQL's typed columns hold numbers only):
# the first, in dataset order, whose token counts or latency are not numbers.
_NOT_NUMBER = """
SELECT case_id, trial, input_tokens, output_tokens, latency_ms FROM records
WHERE run_id = :run AND NOT (typeof(input_tokens) IN ('integer', 'null')
                             AND typeof(output_tokens) IN ('integer', 'null')
                             AND typeof(latency_ms) IN ('real', 'integer', 'null'))
ORDER BY position, trial LIMIT 1
"""
# Ordered by numpy, not SQLite: a million values fetched as they are stored and sorted
# take about half the time of SQLite's sort.
_LATENCIES = """
SELECT latency_ms FROM records WHERE run_id = :run AND latency_ms IS NOT NULL
"""
_TOKENS = """
SELECT input_tokens, output_tokens FROM records
WHERE run_id = :run AND input_tokens IS NOT NULL AND output_tokens IS NOT NULL
"""
# On SQLite the same tokens as two texts (one scan gives both in the same order): a
# million rows are not made one Python tuple each.
_TOKEN_TEXTS = """
SELECT COUNT(*), group_concat(input_tokens), group_concat(output_tokens) FROM records
WHERE run_id = :run AND input_tokens IS NOT NULL AND output_tokens IS NOT NULL
"""


def counted_report(
    store: RunStore,
    info: RunInfo,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    prices: PriceTable | None = None,
) -> Report | None:
    """The report of stored run ``info`` without case rows (what ``report_for_run`` gives
    with ``rows=False``), from counts; None when some figure needs the rows."""
    if (info.metadata.get("cache") or {}).get("key_version") is not None:
        return None
    if sequential_settings(info.metadata) is not None:  # its figures: the cases drawn
        return None
    if budget_settings(info.metadata) is not None:  # its figures: the case-trials run
        return None
    grader = run_grader(info)
    absent = "ungraded" if isinstance(grader, UnavailableGrader) else None
    counted = case_counts(store, info, grader.name, grader.version, absent, ids_apart=True)
    if counted is None:
        return None
    items = counted.items
    if any(c.labelled or c.cache_notes for c in items):
        return None
    usage = counted_usage(store, info, prices)
    if usage is None or has_trajectories(store, info.id):
        return None
    damage = outcome_damage(store.engine, info.id)
    if damage is not None:
        raise row_failure(damage, store.url)
    chosen = policy if policy is not None else trial_policy(info)
    try:
        summary = summary_from_counts(items, info.trials, interval=interval, policy=chosen)
    except UncountedStatus:
        raise status_damage(store, info, grader.name, grader.version) from None
    real = [c for c in items if not c.synthetic]
    judged = sum(c.recorded - c.errored for c in items)  # synthetic cases too
    graders = [] if not judged or (grader.name, grader.version) == ("assay", "1") else [grader]
    held = sum(c.cases for c in real if c.split == "heldout")
    synthetic = None
    if summary.synthetic is not None:
        s = summary.synthetic
        synthetic = SyntheticSection(
            total=s.total,
            success=s.success,
            statuses=s.statuses,
            task_success=s.task_success,
            case_ids=_ids(counted, lambda g: g[1]),
        )
    change = info.metadata.get("dataset_change")
    runs = info.metadata.get("heldout_runs")
    return Report.from_summary(
        summary,
        assay_version=__version__,
        run_id=info.id,
        dataset=DatasetInfo(
            name=info.dataset_name,
            version=info.dataset_version,
            cases=sum(c.cases for c in real),
            source_revisions=counted.revisions,
            change=DatasetChange.model_validate(change) if isinstance(change, dict) else None,
        ),
        graders=[GraderInfo(name=g.name, version=g.version) for g in graders],
        synthetic=synthetic,
        splits=_splits(counted, real, info.trials, interval, chosen),
        heldout=(
            HeldoutNote(cases=held, **({"runs": runs} if isinstance(runs, int) else {}))
            if held
            else None
        ),
        metadata=run_metadata(info),
        usage=usage,
    )


def has_trajectories(store: RunStore, run_id: str) -> bool:
    """Whether some record of the run may carry an agent's trajectory."""
    with store.engine.connect() as conn:
        return conn.execute(text(_TRAJECTORIES), {"run": run_id}).first() is not None


def _ids(counted: CountedRun, chosen: Callable[[Group], bool]) -> list[str]:
    """The ids of the cases whose group is ``chosen``, in dataset order."""
    picked = {i for i, g in enumerate(counted.groups) if chosen(g)}
    pairs = zip(counted.ids, counted.codes, strict=True)
    return [case_id for case_id, code in pairs if code in picked]


def _splits(
    counted: CountedRun,
    real: list[Counts],
    trials: int,
    interval: IntervalSetting,
    policy: TrialPolicy | None,
) -> list[SplitBlock] | None:
    """Dev and held-out summarized apart (real cases only), when both are present
    (``_split_blocks``)."""
    if {c.split for c in real} != {"dev", "heldout"}:
        return None
    blocks = []
    for name in ("dev", "heldout"):
        part = [c for c in real if c.split == name]
        s = summary_of_counts(part, trials=trials, interval=interval, policy=policy)
        blocks.append(split_block(name, s, _ids(counted, partial(_in_split, name))))
    return blocks


def _in_split(split: str, group: Group) -> bool:
    return not group[1] and group[2] == split


def counted_usage(
    store: RunStore, info: RunInfo, prices: PriceTable | None = None
) -> UsageSummary | None:
    """The run's usage section (``usage_of_run``) from sums over its records; None when
    some record was served from the response cache."""
    params: dict[str, Any] = {"run": info.id}
    with store.engine.connect() as conn:
        sums = conn.execute(text(_USAGE), params).one()
        if conn.engine.dialect.name == "sqlite" and not _numbers(sums[3], sums[5], sums[7]):
            raise _number_damage(store, conn, info.id)
        (records, reported, n_in, sum_in, n_out, sum_out, n_latency, top, noted) = (
            int(x or 0) if i != 7 else x for i, x in enumerate(sums)
        )
        if noted:
            return None
        latency = None
        if n_latency:
            # Plain values: numpy would probe each row object for array interfaces (an
            # error raised and caught per probe), 40 µs a row.
            found = conn.execute(text(_LATENCIES), params).scalars().all()
            try:
                ordered = np.sort(np.array(found, dtype=np.float64))
            except (ValueError, TypeError):
                raise _latency_damage(store, conn, info.id) from None
            latency = Latency(
                count=n_latency,
                p50_s=round(_seconds_at(ordered, 0.5), 6),
                p95_s=round(_seconds_at(ordered, 0.95), 6),
                max_s=round(float(top) / 1000, 6),
            )
        stored = prices.stored() if prices is not None else info.metadata.get("prices")
        model = info.target.get("model")
        model = model if isinstance(model, str) else None
        cost: float | None = None
        counted = 0
        note: str | None = None
        price_info: PriceInfo | None = None
        if not isinstance(stored, dict) or not isinstance(stored.get("table"), dict):
            note = "no price table (give one with the suite's prices key or --prices)"
        else:
            table = {name: Price.model_validate(p) for name, p in stored["table"].items()}
            price = table.get(model) if model is not None else None
            price_info = PriceInfo(
                source=stored.get("source"), hash=stored.get("hash") or "", model=model, price=price
            )
            if price is None:
                note = f"the price table has no price for model {model!r}" if model else "no model"
            else:
                costs = _costs(conn, params, price)
                cost = round(math.fsum(costs), 10) if costs else None
                counted = len(costs)
                if not records:
                    cost, note = 0.0, "every case-trial was served from the cache: no call was paid"
                elif cost is None:
                    note = "no case-trial reported both input and output tokens"
    return UsageSummary(
        case_trials=records,
        cached=0,
        usage_reported=reported,
        input_tokens=sum_in if n_in else None,
        input_reported=n_in,
        output_tokens=sum_out if n_out else None,
        output_reported=n_out,
        latency=latency,
        cost_usd=cost,
        cost_reported=counted,
        cost_note=note,
        cost_avoided_usd=None,
        cost_avoided_reported=0,
        prices=price_info,
    )


def _costs(conn: Any, params: dict[str, Any], price: Price) -> list[float]:
    """Each record's cost at ``price`` (records that reported both token counts): what
    ``(i * price.input + o * price.output) / 1_000_000`` gives, in numpy on SQLite (the
    same float operations, so the same values)."""
    if conn.engine.dialect.name != "sqlite":
        return [
            (i * price.input + o * price.output) / 1_000_000
            for i, o in conn.execute(text(_TOKENS), params)
        ]
    count, inputs, outputs = conn.execute(text(_TOKEN_TEXTS), params).one()
    i = np.fromstring(inputs or "", dtype=np.int64, sep=",")
    o = np.fromstring(outputs or "", dtype=np.int64, sep=",")
    if not len(i) == len(o) == count:
        raise ValueError(f"read {len(i)} and {len(o)} of {count} token counts")
    costs: list[float] = ((i * float(price.input) + o * float(price.output)) / 1_000_000).tolist()
    return costs


def _numbers(sum_in: Any, sum_out: Any, top: Any) -> bool:
    """Whether the sums of the run's token counts are whole numbers and its longest
    latency a number (or each is NULL)."""
    return (
        type(sum_in) in (int, type(None))
        and type(sum_out) in (int, type(None))
        and type(top) in (int, float, type(None))
    )


def _number_damage(store: RunStore, conn: Any, run_id: str) -> StoreError:
    """The error naming the first of the run's records whose token counts are not whole
    numbers or whose latency is not a number (found once they were counted)."""
    found = conn.execute(text(_NOT_NUMBER), {"run": run_id}).first()
    if found is None:
        damage = DamagedRow("records", "input_tokens", "a value is not a number", run=run_id)
        return row_failure(damage, store.url)
    case_id, trial, tokens_in, tokens_out, latency = found
    if type(tokens_in) not in (int, type(None)):
        column, what = "input_tokens", f"{shown(tokens_in)} is not a whole number of tokens"
    elif type(tokens_out) not in (int, type(None)):
        column, what = "output_tokens", f"{shown(tokens_out)} is not a whole number of tokens"
    else:
        column, what = "latency_ms", f"{shown(latency)} is not a number of milliseconds"
    damage = DamagedRow("records", column, what, case=case_id, trial=trial)
    return row_failure(damage.of_run(run_id), store.url)


def _latency_damage(store: RunStore, conn: Any, run_id: str) -> StoreError:
    """The error naming the first of the run's records whose latency is not a number
    (found once the latencies could not be read as numbers)."""
    query = select(records.c.case_id, records.c.trial, records.c.latency_ms).where(
        records.c.run_id == run_id, records.c.latency_ms.isnot(None)
    )
    for case_id, trial, latency in conn.execute(query.order_by(records.c.position, "trial")):
        if type(latency) not in (int, float):
            what = f"{shown(latency)} is not a number of milliseconds"
            damage = DamagedRow("records", "latency_ms", what, case=case_id, trial=trial)
            return row_failure(damage.of_run(run_id), store.url)
    damage = DamagedRow("records", "latency_ms", "a value is not a number", run=run_id)
    return row_failure(damage, store.url)


def _seconds_at(ordered_ms: Any, q: float) -> float:
    """``percentile`` of the latencies in seconds, from them in milliseconds, ordered (a
    numpy array): the same arithmetic on the two values it interpolates between."""
    position = (len(ordered_ms) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered_ms) - 1)
    below, above = float(ordered_ms[low]) / 1000, float(ordered_ms[high]) / 1000
    return below + (above - below) * (position - low)
