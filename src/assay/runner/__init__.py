"""The runner: a suite's target over its cases, concurrently, with retries, trials and
resume, into the run store.

>>> from assay.store import open_store
>>> result = run_suite("examples/policy/suite.yaml", open_store())  # doctest: +SKIP
>>> result.report.task_success.value                                 # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.runner._awaited import resume_run_async, run_suite_async
    from assay.runner._cache import CACHE_KEY_VERSION, ResponseCache, default_cache_path, parse_age
    from assay.runner._dry_run import DryRun, dry_run
    from assay.runner._execute import (
        Done,
        Execution,
        WorkItem,
        execute,
        run_item,
    )
    from assay.runner._gate_request import GateRequest, GateVerdict, gate_request
    from assay.runner._judging import JudgeRunner, judge_all, judge_results
    from assay.runner._matrix import (
        matrix_report,
        matrix_runs,
        new_matrix_id,
        resume_matrix,
        run_matrix,
    )
    from assay.runner._options import RateLimiter, RunOptions, Timing, backoff_delay
    from assay.runner._plan_request import Planned, PlanRequest, plan_request
    from assay.runner._prepare import prepare_target
    from assay.runner._provenance import new_run_id
    from assay.runner._receiving import SpanReceiving, receiving_spans
    from assay.runner._regrade import recorded_grader, regrade_run
    from assay.runner._request import RunRequest
    from assay.runner._run import (
        Overrides,
        RunControl,
        RunResult,
        resume_run,
        run_suite,
    )
    from assay.runner._run_request import RunOutcome, nothing_graded, run_request
    from assay.runner._select import Selection, select
    from assay.runner._span_grading import grade_from_spans
    from assay.runner._trend import (
        gate_suite,
        parse_since,
        suite_names,
        suite_runs,
        trend_for_suite,
    )
    from assay.runs._report import report_for_run

# Each name is imported from its module on first use: `assay run` and `assay report` need
# neither the matrix, the trend nor the comparison modules (and their imports).
_WHERE: dict[str, str] = {
    "default_cache_path": "assay.runner._cache",
    "CACHE_KEY_VERSION": "assay.runner._cache",
    "ResponseCache": "assay.runner._cache",
    "parse_age": "assay.runner._cache",
    "recorded_grader": "assay.runner._regrade",
    "regrade_run": "assay.runner._regrade",
    "grade_from_spans": "assay.runner._span_grading",
    "Done": "assay.runner._execute",
    "DryRun": "assay.runner._dry_run",
    "Execution": "assay.runner._execute",
    "GateRequest": "assay.runner._gate_request",
    "GateVerdict": "assay.runner._gate_request",
    "JudgeRunner": "assay.runner._judging",
    "Overrides": "assay.runner._run",
    "PlanRequest": "assay.runner._plan_request",
    "Planned": "assay.runner._plan_request",
    "RateLimiter": "assay.runner._options",
    "RunControl": "assay.runner._run",
    "RunOptions": "assay.runner._options",
    "RunOutcome": "assay.runner._run_request",
    "RunRequest": "assay.runner._request",
    "RunResult": "assay.runner._run",
    "Selection": "assay.runner._select",
    "SpanReceiving": "assay.runner._receiving",
    "Timing": "assay.runner._options",
    "WorkItem": "assay.runner._execute",
    "backoff_delay": "assay.runner._options",
    "dry_run": "assay.runner._dry_run",
    "execute": "assay.runner._execute",
    "gate_request": "assay.runner._gate_request",
    "gate_suite": "assay.runner._trend",
    "judge_all": "assay.runner._judging",
    "judge_results": "assay.runner._judging",
    "matrix_report": "assay.runner._matrix",
    "matrix_runs": "assay.runner._matrix",
    "parse_since": "assay.runner._trend",
    "plan_request": "assay.runner._plan_request",
    "prepare_target": "assay.runner._prepare",
    "report_for_run": "assay.runs._report",
    "resume_matrix": "assay.runner._matrix",
    "resume_run": "assay.runner._run",
    "resume_run_async": "assay.runner._awaited",
    "run_item": "assay.runner._execute",
    "run_matrix": "assay.runner._matrix",
    "new_matrix_id": "assay.runner._matrix",
    "run_suite": "assay.runner._run",
    "run_suite_async": "assay.runner._awaited",
    "select": "assay.runner._select",
    "suite_names": "assay.runner._trend",
    "suite_runs": "assay.runner._trend",
    "trend_for_suite": "assay.runner._trend",
    "new_run_id": "assay.runner._provenance",
    "nothing_graded": "assay.runner._run_request",
    "receiving_spans": "assay.runner._receiving",
    "run_request": "assay.runner._run_request",
}


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "CACHE_KEY_VERSION",
    "Done",
    "DryRun",
    "Execution",
    "GateRequest",
    "GateVerdict",
    "JudgeRunner",
    "Overrides",
    "PlanRequest",
    "Planned",
    "RateLimiter",
    "ResponseCache",
    "RunControl",
    "RunOptions",
    "RunOutcome",
    "RunRequest",
    "RunResult",
    "Selection",
    "SpanReceiving",
    "Timing",
    "WorkItem",
    "backoff_delay",
    "default_cache_path",
    "dry_run",
    "execute",
    "gate_request",
    "gate_suite",
    "grade_from_spans",
    "judge_all",
    "judge_results",
    "matrix_report",
    "matrix_runs",
    "new_matrix_id",
    "new_run_id",
    "nothing_graded",
    "parse_age",
    "parse_since",
    "plan_request",
    "prepare_target",
    "receiving_spans",
    "recorded_grader",
    "regrade_run",
    "report_for_run",
    "resume_matrix",
    "resume_run",
    "resume_run_async",
    "run_item",
    "run_matrix",
    "run_request",
    "run_suite",
    "run_suite_async",
    "select",
    "suite_names",
    "suite_runs",
    "trend_for_suite",
]
