"""The runner: a suite's target over its cases, concurrently, with retries, trials and
resume, into the run store.

>>> from assay.store import open_store
>>> result = run_suite("examples/policy/suite.yaml", open_store())  # doctest: +SKIP
>>> result.report.task_success.value                                 # doctest: +SKIP
"""

from assay.runner._execute import (
    Attempts,
    Done,
    Execution,
    WorkItem,
    bounded,
    execute,
    run_item,
    with_retries,
)
from assay.runner._judging import JudgeRunner, JudgeTransport, judge_all, judge_results
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
    prepare_target,
    resume_run,
    run_suite,
)
from assay.runner._select import Selection, select
from assay.runner._trend import (
    config_hash,
    gate_suite,
    parse_since,
    suite_names,
    suite_run,
    suite_runs,
    trend_for_suite,
)

__all__ = [
    "Attempts",
    "Done",
    "Execution",
    "JudgeRunner",
    "JudgeTransport",
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
    "bounded",
    "config_hash",
    "execute",
    "gate_suite",
    "headline",
    "judge_all",
    "judge_results",
    "matrix_report",
    "matrix_runs",
    "options_for",
    "parse_since",
    "prepare_target",
    "report_for_run",
    "resume_matrix",
    "resume_run",
    "run_item",
    "run_matrix",
    "run_metadata",
    "run_suite",
    "select",
    "suite_names",
    "suite_run",
    "suite_runs",
    "trend_for_suite",
    "with_retries",
]
