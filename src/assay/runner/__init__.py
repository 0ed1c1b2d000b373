"""The runner: a suite's target over its cases, concurrently, with retries, trials and
resume, into the run store.

>>> from assay.store import open_store
>>> result = run_suite("examples/policy/suite.yaml", open_store())  # doctest: +SKIP
>>> result.report.task_success.value                                 # doctest: +SKIP
"""

from assay.runner._execute import Done, Execution, WorkItem, execute, run_item
from assay.runner._matrix import (
    MatrixResult,
    VariantRun,
    matrix_report,
    matrix_runs,
    resume_matrix,
    run_matrix,
)
from assay.runner._options import RateLimiter, RunOptions, Timing, backoff_delay
from assay.runner._report import StoredGrader, headline, report_for_run, run_metadata
from assay.runner._run import (
    Overrides,
    Progress,
    RunControl,
    RunResult,
    options_for,
    resume_run,
    run_suite,
)
from assay.runner._select import Selection, select

__all__ = [
    "Done",
    "Execution",
    "MatrixResult",
    "Overrides",
    "Progress",
    "RateLimiter",
    "RunControl",
    "RunOptions",
    "RunResult",
    "Selection",
    "StoredGrader",
    "Timing",
    "VariantRun",
    "WorkItem",
    "backoff_delay",
    "execute",
    "headline",
    "matrix_report",
    "matrix_runs",
    "options_for",
    "report_for_run",
    "resume_matrix",
    "resume_run",
    "run_item",
    "run_matrix",
    "run_metadata",
    "run_suite",
    "select",
]
