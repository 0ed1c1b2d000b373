"""Where a command's report comes from: a JSON report file or a run in the store (read in
``assay.runs``)."""

from __future__ import annotations

from assay.runs import open_run_store as open_run_store  # for the compare command
