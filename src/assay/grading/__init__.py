"""Grading: turning recorded outcomes into judgments with a status and a reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.grading._all import grade_all, validate_inputs
    from assay.grading._grade import CaseResult, grade, judge_record
    from assay.grading._judgment import STATUSES, CallingGrader, Grader, Judgment, Status
    from assay.grading._rules import rule_judgment, unjudged_status
    from assay.grading._structured import StructuredGrader
    from assay.grading._type import ENTRY_POINT_GROUP, GraderType
    from assay.grading.checks import (
        CheckResult,
        CompositeResult,
        CompositeScorer,
        Profile,
    )

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "grade_all": "assay.grading._all",
    "validate_inputs": "assay.grading._all",
    "CaseResult": "assay.grading._grade",
    "grade": "assay.grading._grade",
    "judge_record": "assay.grading._grade",
    "STATUSES": "assay.grading._judgment",
    "CallingGrader": "assay.grading._judgment",
    "Grader": "assay.grading._judgment",
    "Judgment": "assay.grading._judgment",
    "Status": "assay.grading._judgment",
    "rule_judgment": "assay.grading._rules",
    "unjudged_status": "assay.grading._rules",
    "StructuredGrader": "assay.grading._structured",
    "GraderType": "assay.grading._type",
    "ENTRY_POINT_GROUP": "assay.grading._type",
    "CheckResult": "assay.grading.checks",
    "CompositeResult": "assay.grading.checks",
    "CompositeScorer": "assay.grading.checks",
    "Profile": "assay.grading.checks",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "ENTRY_POINT_GROUP",
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
