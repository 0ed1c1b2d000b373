"""Two stored runs compared: each run as one side of a comparison (its report, its
configuration and its cases' definitions), paired by the database where it can be
(``_paired``), else through the runs' reports."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from assay.cases import Case, canonical_record
from assay.compare import Comparison, RunSide, compare_runs
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.report import Report
from assay.runs._paired import paired_comparison
from assay.runs._report import report_for_run
from assay.runs._run_settings import run_config
from assay.store import RunStore


def run_side(
    store: RunStore,
    ref: str,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    report: Report | None = None,
) -> RunSide:
    """Stored run ``ref`` as one side of a comparison: its report (``report`` when already
    built at the same level), its configuration and each case's full definition, so that
    a refusal names every changed field."""
    info = store.get_run(ref)
    if report is None:
        report = report_for_run(store, info.id, interval=interval, compact=True)
    definitions = Definitions(store.load_dataset(info.id).cases)
    side = RunSide.from_report(report, ref=info.id, config=run_config(info))
    return replace(side, definitions=definitions)


class Definitions(Mapping[str, Mapping[str, Any]]):
    """Each case's full definition (its canonical record) by id, made when it is looked
    up: a comparison looks up only the cases whose definitions differ, so a run of a
    million cases does not make a million records to name none."""

    def __init__(self, cases: Iterable[Case]) -> None:
        self._cases = {c.id: c for c in cases}

    def __getitem__(self, case_id: str) -> Mapping[str, Any]:
        return canonical_record(self._cases[case_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._cases)

    def __len__(self) -> int:
        return len(self._cases)


def compare_stored(
    store: RunStore,
    baseline: str,
    candidate: str,
    *,
    matching_only: bool = False,
    across_graders: bool = False,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    reports: tuple[Report | None, Report | None] = (None, None),
) -> Comparison:
    """The paired comparison of two stored runs, as ``assay compare BASELINE CANDIDATE``
    makes it (``ComparisonRefusedError`` when it must refuse)."""
    if reports == (None, None):
        paired = paired_comparison(
            store,
            baseline,
            candidate,
            matching_only=matching_only,
            across_graders=across_graders,
            interval=interval,
        )
        if paired is not None:
            return paired
    sides = [
        run_side(store, ref, interval, report)
        for ref, report in zip((baseline, candidate), reports, strict=True)
    ]
    return compare_runs(
        sides[0],
        sides[1],
        matching_only=matching_only,
        across_graders=across_graders,
        interval=interval,
    )
