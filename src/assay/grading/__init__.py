"""Grading: turning recorded outcomes into judgments with a status and a reason."""

from assay.grading._grade import CaseResult, grade, group_trials, judge_record, trial_count
from assay.grading._judgment import STATUSES, CallingGrader, Grader, Judgment, Status
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
    "grade",
    "group_trials",
    "judge_record",
    "trial_count",
]
