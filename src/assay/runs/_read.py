"""A stored run's report, its comparison side and the comparison of two stored runs."""

from __future__ import annotations

from assay.load import PriceTable
from assay.metrics import DEFAULT_INTERVAL, IntervalMethod, IntervalSetting, TrialPolicy
from assay.metrics._setting import chosen_interval
from assay.report import Report
from assay.runs._report import report_for_run
from assay.store import RunStore


def stored_report(
    store: RunStore,
    run_id: str,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    *,
    policy: TrialPolicy | None = None,
    prices: PriceTable | None = None,
    compact: bool = False,
    rows: bool = True,
    confidence: float | None = None,
    method: IntervalMethod | None = None,
) -> Report:
    """The report of stored run ``run_id`` (an id or a unique prefix), intervals at the
    ``interval`` setting: what ``assay report RUN`` prints. Trials combine by
    ``policy`` when given, else as the run's suite stated; the cost is priced with
    ``prices`` when given, else with the table stored with the run. ``compact``: its
    rows are kept as ``CaseRows``, for a report that is only rendered or gated;
    ``rows=False``: it has none, for a report only its figures are read from."""
    interval = chosen_interval(interval, confidence, method, "stored_report")
    return report_for_run(
        store,
        run_id,
        interval=interval,
        policy=policy,
        prices=prices,
        compact=compact,
        rows=rows,
    )
