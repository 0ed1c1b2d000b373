"""assay: an evaluation harness for LLM applications whose numbers you can trust.

>>> from assay import load_dataset, load_results, summarize
>>> summary = summarize(load_dataset("examples/policy/policy.jsonl"),
...                     load_results("examples/policy/results.jsonl"))  # doctest: +SKIP
"""

from assay._version import __version__
from assay.cases import Case, Dataset
from assay.errors import (
    AssayConfigError,
    AssayError,
    AssayInputError,
    DuplicateCaseIdError,
    DuplicateResultError,
    InputFormatError,
    UnknownResultIdError,
)
from assay.grading import (
    CaseResult,
    CheckResult,
    CompositeResult,
    CompositeScorer,
    Grader,
    Judgment,
    Profile,
    Status,
    StructuredGrader,
    grade,
)
from assay.load import load_dataset, load_profile, load_results
from assay.metrics import Rate, Summary, rate, summarize
from assay.outcomes import Abstain, Answer, Error, Outcome, Record, Results
from assay.report import Report, build_report

__all__ = [
    "Abstain",
    "Answer",
    "AssayConfigError",
    "AssayError",
    "AssayInputError",
    "Case",
    "CaseResult",
    "CheckResult",
    "CompositeResult",
    "CompositeScorer",
    "Dataset",
    "DuplicateCaseIdError",
    "DuplicateResultError",
    "Error",
    "Grader",
    "InputFormatError",
    "Judgment",
    "Outcome",
    "Profile",
    "Rate",
    "Record",
    "Report",
    "Results",
    "Status",
    "StructuredGrader",
    "Summary",
    "UnknownResultIdError",
    "__version__",
    "build_report",
    "grade",
    "load_dataset",
    "load_profile",
    "load_results",
    "rate",
    "summarize",
]
