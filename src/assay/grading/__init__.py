"""Grading: turning recorded outcomes into judgments with a status and a reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.grading._all import grade_all, validate_inputs
    from assay.grading._grade import CaseResult, grade, judge_record
    from assay.grading._judgment import STATUSES, CallingGrader, Grader, Judgment, Status
    from assay.grading._repeats import (
        MAX_REPEATS,
        RepeatVerdict,
        kept_repeats,
        repeat_of,
        repeat_verdict,
    )
    from assay.grading._rules import (
        GRADERLESS,
        MISSING_REASON,
        RULES_VERSION,
        STEP_LIMIT_REASON,
        error_reason,
        rule_judgment,
        stopped_at_step_limit,
        unjudged_status,
    )
    from assay.grading._status_rule import (
        kind_sql,
        pack,
        pack_sql,
        status_code_sql,
        status_of,
        status_sql,
    )
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
    "MAX_REPEATS": "assay.grading._repeats",
    "RepeatVerdict": "assay.grading._repeats",
    "kept_repeats": "assay.grading._repeats",
    "repeat_of": "assay.grading._repeats",
    "repeat_verdict": "assay.grading._repeats",
    "rule_judgment": "assay.grading._rules",
    "unjudged_status": "assay.grading._rules",
    "GRADERLESS": "assay.grading._rules",
    "MISSING_REASON": "assay.grading._rules",
    "RULES_VERSION": "assay.grading._rules",
    "STEP_LIMIT_REASON": "assay.grading._rules",
    "stopped_at_step_limit": "assay.grading._rules",
    "error_reason": "assay.grading._rules",
    "StructuredGrader": "assay.grading._structured",
    "GraderType": "assay.grading._type",
    "ENTRY_POINT_GROUP": "assay.grading._type",
    "CheckResult": "assay.grading.checks",
    "CompositeResult": "assay.grading.checks",
    "CompositeScorer": "assay.grading.checks",
    "Profile": "assay.grading.checks",
    "status_of": "assay.grading._status_rule",
    "status_sql": "assay.grading._status_rule",
    "kind_sql": "assay.grading._status_rule",
    "pack_sql": "assay.grading._status_rule",
    "status_code_sql": "assay.grading._status_rule",
    "pack": "assay.grading._status_rule",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "ENTRY_POINT_GROUP",
    "GRADERLESS",
    "MAX_REPEATS",
    "MISSING_REASON",
    "RULES_VERSION",
    "STATUSES",
    "STEP_LIMIT_REASON",
    "CallingGrader",
    "CaseResult",
    "CheckResult",
    "CompositeResult",
    "CompositeScorer",
    "Grader",
    "GraderType",
    "Judgment",
    "Profile",
    "RepeatVerdict",
    "Status",
    "StructuredGrader",
    "error_reason",
    "grade",
    "grade_all",
    "judge_record",
    "kept_repeats",
    "kind_sql",
    "pack",
    "pack_sql",
    "repeat_of",
    "repeat_verdict",
    "rule_judgment",
    "status_code_sql",
    "status_of",
    "status_sql",
    "stopped_at_step_limit",
    "unjudged_status",
    "validate_inputs",
]
