"""assay: an evaluation harness for LLM applications whose numbers you can trust.

>>> from assay import load_dataset, load_results, summarize
>>> summary = summarize(load_dataset("examples/policy/policy.jsonl"),
...                     load_results("examples/policy/results.jsonl"))  # doctest: +SKIP

Names are imported on first use, so that ``import assay`` (and ``assay --help``) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay._lazy import lazy_exports
from assay._version import __version__

if TYPE_CHECKING:
    from assay.cases import (
        Case,
        Dataset,
    )
    from assay.compare import (
        Comparison,
        RunSide,
        compare_runs,
    )
    from assay.errors import (
        AssayConfigError,
        AssayError,
        AssayInputError,
        DuplicateCaseIdError,
        DuplicateResultError,
        InputFormatError,
        TrialNumberError,
        UnknownResultIdError,
    )
    from assay.gates import evaluate_gates
    from assay.grading import (
        CallingGrader,
        CaseResult,
        CheckResult,
        CompositeResult,
        CompositeScorer,
        Grader,
        GraderType,
        Judgment,
        Profile,
        Status,
        StructuredGrader,
        grade,
    )
    from assay.grading.checks import (
        Check,
        CheckInput,
    )
    from assay.load import (
        load_dataset,
        load_profile,
        load_results,
        load_suite,
    )
    from assay.metrics import (
        IntervalSetting,
        Rate,
        Summary,
        rate,
    )
    from assay.outcomes import (
        Abstain,
        Answer,
        Error,
        Outcome,
        Record,
        Results,
    )
    from assay.planning import plan
    from assay.report import Report, build_report, summarize
    from assay.runner import run_suite, run_suite_async
    from assay.runs import report_for_run, runs_frame
    from assay.scoring import score_files
    from assay.store import (
        open_store,
    )
    from assay.targets import (
        BaseTarget,
        Reply,
        Target,
        TargetContext,
        TargetType,
    )

# The public names and the module each comes from: the one list __all__ is made of.
_EXPORTS: dict[str, str] = {
    "Case": "assay.cases",
    "Dataset": "assay.cases",
    "AssayConfigError": "assay.errors",
    "AssayError": "assay.errors",
    "AssayInputError": "assay.errors",
    "DuplicateCaseIdError": "assay.errors",
    "DuplicateResultError": "assay.errors",
    "InputFormatError": "assay.errors",
    "TrialNumberError": "assay.errors",
    "UnknownResultIdError": "assay.errors",
    "CaseResult": "assay.grading",
    "CheckResult": "assay.grading",
    "CompositeResult": "assay.grading",
    "CompositeScorer": "assay.grading",
    "CallingGrader": "assay.grading",
    "Grader": "assay.grading",
    "GraderType": "assay.grading",
    "Judgment": "assay.grading",
    "Profile": "assay.grading",
    "Status": "assay.grading",
    "StructuredGrader": "assay.grading",
    "grade": "assay.grading",
    "Check": "assay.grading.checks",
    "CheckInput": "assay.grading.checks",
    "load_dataset": "assay.load",
    "load_profile": "assay.load",
    "load_results": "assay.load",
    "load_suite": "assay.load",
    "IntervalSetting": "assay.metrics",
    "Rate": "assay.metrics",
    "Summary": "assay.metrics",
    "rate": "assay.metrics",
    "summarize": "assay.report",
    "Abstain": "assay.outcomes",
    "Answer": "assay.outcomes",
    "Error": "assay.outcomes",
    "Outcome": "assay.outcomes",
    "Record": "assay.outcomes",
    "Results": "assay.outcomes",
    "plan": "assay.planning",
    "Report": "assay.report",
    "build_report": "assay.report",
    "evaluate_gates": "assay.gates",
    "Comparison": "assay.compare",
    "RunSide": "assay.compare",
    "compare_runs": "assay.compare",
    "report_for_run": "assay.runs",
    "runs_frame": "assay.runs",
    "run_suite": "assay.runner",
    "run_suite_async": "assay.runner",
    "score_files": "assay.scoring",
    "open_store": "assay.store",
    "BaseTarget": "assay.targets",
    "Reply": "assay.targets",
    "Target": "assay.targets",
    "TargetContext": "assay.targets",
    "TargetType": "assay.targets",
}

__all__ = ["__version__", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
