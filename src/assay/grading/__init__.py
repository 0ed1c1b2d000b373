"""Grading: turning recorded outcomes into judgments with a status and a reason."""

from assay.grading._all import grade_all, validate_inputs
from assay.grading._grade import CaseResult, grade, judge_record
from assay.grading._judgment import STATUSES, CallingGrader, Grader, Judgment, Status
from assay.grading._rules import rule_judgment, unjudged_status
from assay.grading._structured import StructuredGrader
from assay.grading._type import GraderType
from assay.grading.checks import (
    CheckResult,
    CompositeResult,
    CompositeScorer,
    Profile,
)

__all__ = [
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
    "grade",
    "grade_all",
    "judge_record",
    "rule_judgment",
    "unjudged_status",
    "validate_inputs",
]
