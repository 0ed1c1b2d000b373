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
    from assay.stored._case import StoredRun
    from assay.stored._compared import compare_stored, run_side
    from assay.stored._composite import StoredInputs, composite_inputs
    from assay.stored._pilot import pilot_of
    from assay.stored._read import stored_report
    from assay.stored._report import headline, report_for_run
    from assay.stored._summary import stored_summary

# Each name is imported from its module on first use: `assay run` and `assay report` build
# a report without loading the comparison, composite and diagnosis readers.
_WHERE: dict[str, str] = {
    "StoredInputs": "assay.stored._composite",
    "StoredRun": "assay.stored._case",
    "compare_stored": "assay.stored._compared",
    "composite_inputs": "assay.stored._composite",
    "headline": "assay.stored._report",
    "pilot_of": "assay.stored._pilot",
    "report_for_run": "assay.stored._report",
    "run_side": "assay.stored._compared",
    "stored_report": "assay.stored._read",
    "stored_summary": "assay.stored._summary",
}


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "StoredInputs",
    "StoredRun",
    "compare_stored",
    "composite_inputs",
    "headline",
    "pilot_of",
    "report_for_run",
    "run_side",
    "stored_report",
    "stored_summary",
]
