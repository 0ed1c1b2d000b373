"""Checks and the composite scorer: named yes/no tests of a recorded answer, weighed by a
profile whose critical checks veto a pass."""

from assay.grading.checks._apply import composite_all, scored_case
from assay.grading.checks._builtin import (
    BUILTIN_CHECKS,
    abstention_correct,
    answer_not_empty,
    citation_supports,
    citation_valid,
    content_absent,
    content_present,
    format_valid,
)
from assay.grading.checks._judge import (
    JUDGE_CHECKS,
    judge_check_names,
    judge_check_results,
    judge_not_supplied,
    with_judge,
)
from assay.grading.checks._profile import (
    DEFAULT_PROFILE,
    DEFAULT_WEIGHTS,
    Profile,
    ProfileError,
    exact,
    make_profile,
)
from assay.grading.checks._recorded import (
    CompositeInputs,
    RecordedChecks,
    check_composite_inputs,
    check_line_value,
    imported_checks,
    parse_composite_results,
)
from assay.grading.checks._registry import ENTRY_POINT_GROUP, CheckLoader, CheckRegistry
from assay.grading.checks._scorer import CompositeResult, CompositeScorer
from assay.grading.checks._synthetic import flip_check
from assay.grading.checks._text import contains, normalize
from assay.grading.checks._types import Check, CheckInput, CheckResult

__all__ = [
    "BUILTIN_CHECKS",
    "DEFAULT_PROFILE",
    "DEFAULT_WEIGHTS",
    "ENTRY_POINT_GROUP",
    "JUDGE_CHECKS",
    "Check",
    "CheckInput",
    "CheckLoader",
    "CheckRegistry",
    "CheckResult",
    "CompositeInputs",
    "CompositeResult",
    "CompositeScorer",
    "Profile",
    "ProfileError",
    "RecordedChecks",
    "abstention_correct",
    "answer_not_empty",
    "check_composite_inputs",
    "check_line_value",
    "citation_supports",
    "citation_valid",
    "composite_all",
    "contains",
    "content_absent",
    "content_present",
    "exact",
    "flip_check",
    "format_valid",
    "imported_checks",
    "judge_check_names",
    "judge_check_results",
    "judge_not_supplied",
    "make_profile",
    "normalize",
    "parse_composite_results",
    "scored_case",
    "with_judge",
]
