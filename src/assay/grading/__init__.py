"""Grading: turning recorded outcomes into judgments with a status and a reason."""

from assay.grading._grade import CaseResult, grade, trial_count
from assay.grading._judgment import STATUSES, Grader, Judgment, Status
from assay.grading._structured import StructuredGrader

__all__ = [
    "STATUSES",
    "CaseResult",
    "Grader",
    "Judgment",
    "Status",
    "StructuredGrader",
    "grade",
    "trial_count",
]
