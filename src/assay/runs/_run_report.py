"""A stored run's report, made to be rendered in one format: its figures counted by the
database and its rows read from the store as the format's writer reads them, when it
can; else built from every case-trial graded (``report_for_run``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from assay.errors import AssayError
from assay.formats import report_rows
from assay.load import PriceTable
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, TrialPolicy
from assay.report import Report, TracedReport, close_rows
from assay.runs._calibration import corrected, stored_calibration
from assay.runs._judge_noise import with_judge_noise
from assay.runs._report import report_for_run
from assay.runs._streamed import streamed_report
from assay.store import RunStore

if TYPE_CHECKING:
    from assay.load import CalibrationCheck

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
    priced with ``prices`` when given, else with the table stored with the run. A run whose
    suite names a judge calibration has its task success corrected for the judge's
    measured errors, or says why it is not."""
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
    built = with_judge_noise(store, built)
    built = corrected(built, _calibration_of(store, built.run_id or run_id))
    shown: Report | TracedReport = (
        TracedReport(built, tuple(store.spans(built.run_id or run_id))) if fmt in TRACED else built
    )
    try:
        yield shown
    finally:
        close_rows(built)


def _calibration_of(store: RunStore, run_id: str) -> CalibrationCheck | None:
    """The judge calibration a stored run's suite names, or None (none named, or its judge
    settings can no longer be read: the report is shown without a correction)."""
    try:
        return stored_calibration(store.get_run(run_id))
    except AssayError:
        return None
