"""A stored run's report, made to be rendered in one format: its figures counted by the
database and its rows read from the store as the format's writer reads them, when it
can; else built from every case-trial graded (``report_for_run``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from assay._collector import no_cycle_collection
from assay.formats import report_rows
from assay.load import PriceTable
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, TrialPolicy
from assay.report import Report, TracedReport, close_rows
from assay.runs._report import report_for_run
from assay.runs._streamed import streamed_report
from assay.store import RunStore

TRACED = ("html",)
"""The report formats that draw each case-trial's trace beside its row."""


@contextlib.contextmanager
def run_report(
    store: RunStore,
    run_id: str,
    *,
    fmt: str = "json",
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    prices: PriceTable | None = None,
) -> Iterator[Report | TracedReport]:
    """The report of stored run ``run_id`` to be rendered in report format ``fmt``
    (with the run's spans, for a format that draws them: ``TRACED``), while the block
    lasts: its rows may be read from ``store`` as they are rendered, so keep it open.
    Trials combine by ``policy`` when given, else as the run's suite stated; the cost is
    priced with ``prices`` when given, else with the table stored with the run."""
    with no_cycle_collection():
        built = streamed_report(
            store,
            run_id,
            interval=interval,
            policy=policy,
            prices=prices,
            whole=report_rows(fmt) != "listed",
        )
        if built is None:
            built = report_for_run(
                store, run_id, interval=interval, policy=policy, prices=prices, compact=True
            )
        shown: Report | TracedReport = (
            TracedReport(built, tuple(store.spans(built.run_id or run_id)))
            if fmt in TRACED
            else built
        )
    try:
        yield shown
    finally:
        close_rows(built)
