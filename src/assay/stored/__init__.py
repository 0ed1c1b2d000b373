"""Reading stored runs: one place that turns what the run store holds into a run's report,
its side of a comparison and the comparison of two stored runs.

``assay report``, ``assay compare`` and the viewer all read through here, so that the
same store gives the same answer everywhere.

>>> from assay.store import open_store
>>> store = open_store("sqlite:///.assay/assay.db", read_only=True)  # doctest: +SKIP
>>> compare_stored(store, "run-a", "run-b").summary  # doctest: +SKIP
"""

from assay.stored._read import compare_stored, run_config, run_side, stored_report

__all__ = ["compare_stored", "run_config", "run_side", "stored_report"]
