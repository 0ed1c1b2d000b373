"""The runner: a suite's target over its cases, concurrently, with retries, trials and
resume, into the run store.

>>> from assay.store import open_store
>>> result = run_suite("examples/policy/suite.yaml", open_store())  # doctest: +SKIP
>>> result.report.task_success.value                                 # doctest: +SKIP
"""

from assay.runner._execute import Done, Execution, WorkItem, execute, run_item
from assay.runner._judging import JudgeRunner, JudgeTransport, judge_all, judge_results
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
    "JudgeRunner",
    "JudgeTransport",
    "Overrides",
    "Progress",
    "RateLimiter",
    "RunControl",
    "RunOptions",
    "RunResult",
    "Selection",
    "StoredGrader",
    "Timing",
    "WorkItem",
    "backoff_delay",
    "execute",
    "headline",
    "judge_all",
    "judge_results",
    "options_for",
    "report_for_run",
    "resume_run",
    "run_item",
    "run_metadata",
    "run_suite",
    "select",
]
