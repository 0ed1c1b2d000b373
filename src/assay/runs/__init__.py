"""Reading stored runs: one place that turns what the run store holds into a run's report
(``report_for_run``, which the runner, the CLI and the viewer all call), its summary
counted by the database (``stored_summary``), its side of a comparison, the comparison
of two stored runs, its outcomes as composite scoring's inputs, and one case's outcome,
judgment and finding (``StoredRun``).

``assay compare``, ``composite``, ``trace`` and ``diagnose`` and the viewer read through
here, so that the same store gives the same answer everywhere.

>>> from assay.store import open_store
>>> store = open_store("sqlite:///.assay/assay.db", read_only=True)  # doctest: +SKIP
>>> compare_stored(store, "run-a", "run-b").summary  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.runs._baseline import suite_baseline
    from assay.runs._calibration import corrected, stored_calibration, suite_calibration
    from assay.runs._case import StoredRun
    from assay.runs._compared import compare_stored, run_side
    from assay.runs._composite import composite_inputs
    from assay.runs._judge_noise import stored_repeats
    from assay.runs._listing import run_listing
    from assay.runs._paired import paired_comparison
    from assay.runs._pilot import pilot_of
    from assay.runs._report import headline, report_for_run
    from assay.runs._run_report import run_report
    from assay.runs._run_settings import StoredGrader, run_metadata
    from assay.runs._runs_frame import runs_frame
    from assay.runs._source import open_run_store, report_and_run
    from assay.runs._summary import stored_summary
    from assay.runs._trial_policy import check_policy, check_policy_text

# Each name is imported from its module on first use: `assay run` and `assay report` build
# a report without loading the comparison, composite and diagnosis readers.
_WHERE: dict[str, str] = {
    "paired_comparison": "assay.runs._paired",
    "run_listing": "assay.runs._listing",
    "StoredGrader": "assay.runs._run_settings",
    "run_metadata": "assay.runs._run_settings",
    "StoredRun": "assay.runs._case",
    "check_policy": "assay.runs._trial_policy",
    "check_policy_text": "assay.runs._trial_policy",
    "corrected": "assay.runs._calibration",
    "compare_stored": "assay.runs._compared",
    "composite_inputs": "assay.runs._composite",
    "headline": "assay.runs._report",
    "pilot_of": "assay.runs._pilot",
    "report_for_run": "assay.runs._report",
    "run_report": "assay.runs._run_report",
    "run_side": "assay.runs._compared",
    "runs_frame": "assay.runs._runs_frame",
    "open_run_store": "assay.runs._source",
    "report_and_run": "assay.runs._source",
    "stored_calibration": "assay.runs._calibration",
    "stored_repeats": "assay.runs._judge_noise",
    "stored_summary": "assay.runs._summary",
    "suite_baseline": "assay.runs._baseline",
    "suite_calibration": "assay.runs._calibration",
}


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "StoredGrader",
    "StoredRun",
    "check_policy",
    "check_policy_text",
    "compare_stored",
    "composite_inputs",
    "corrected",
    "headline",
    "open_run_store",
    "paired_comparison",
    "pilot_of",
    "report_and_run",
    "report_for_run",
    "run_listing",
    "run_metadata",
    "run_report",
    "run_side",
    "runs_frame",
    "stored_calibration",
    "stored_repeats",
    "stored_summary",
    "suite_baseline",
    "suite_calibration",
]
