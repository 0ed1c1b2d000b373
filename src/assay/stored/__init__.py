"""Reading stored runs: one place that turns what the run store holds into a run's report,
its side of a comparison, the comparison of two stored runs, its outcomes as composite
scoring's inputs, and one case's outcome, judgment and finding (``StoredRun``).

``assay compare``, ``composite``, ``trace`` and ``diagnose`` and the viewer read through
here, so that the same store gives the same answer everywhere.

>>> from assay.store import open_store
>>> store = open_store("sqlite:///.assay/assay.db", read_only=True)  # doctest: +SKIP
>>> compare_stored(store, "run-a", "run-b").summary  # doctest: +SKIP
"""

from assay.stored._case import StoredRun
from assay.stored._composite import StoredInputs, composite_inputs
from assay.stored._read import compare_stored, run_side, stored_report

__all__ = [
    "StoredInputs",
    "StoredRun",
    "compare_stored",
    "composite_inputs",
    "run_side",
    "stored_report",
]
