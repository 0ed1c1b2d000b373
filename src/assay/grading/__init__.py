"""Grading: turning recorded outcomes into judgments with a status and a reason."""

from assay.grading._all import grade_all, validate_inputs
from assay.grading._grade import CaseResult, grade, group_trials, judge_record, trial_count
from assay.grading._judgment import STATUSES, CallingGrader, Grader, Judgment, Status
from assay.grading._rules import error_reason, rule_judgment, unjudged_status
from assay.grading._structured import StructuredGrader
from assay.grading._type import GraderType
from assay.grading.checks import (
    DEFAULT_PROFILE,
    CheckResult,
    CompositeResult,
    CompositeScorer,
    Profile,
)

__all__ = [
    "DEFAULT_PROFILE",
    "STATUSES",
    "CallingGrader",
    "CaseResult",
    "CheckResult",
    "CompositeResult",
    "CompositeScorer",
    "Grader",
    "GraderType",
    "Judgment",
    "Profile",
    "Status",
    "StructuredGrader",
    "error_reason",
    "grade",
    "grade_all",
    "group_trials",
    "judge_record",
    "rule_judgment",
    "trial_count",
    "unjudged_status",
    "validate_inputs",
]
