"""The judgments assay makes itself, whatever the grader: ``missing`` for a case-trial with
no record, ``error`` for an error outcome, ``failed`` ("step limit") for an agent stopped
at its step limit (all three by the status rule, ``grading._status_rule``), ``ungraded``
when a grader fails. Every pipeline (the runner, stored reports, composite scoring, the
run reader) takes them from here."""

from __future__ import annotations

from assay.grading._judgment import Judgment, Status
from assay.grading._status_rule import rule_status
from assay.outcomes import TRAJECTORY_KEY, Error, Record, TrajectoryError, trajectory_of

GRADERLESS = "assay"
RULES_VERSION = "1"
MISSING_REASON = "no recorded outcome"
STEP_LIMIT_REASON = "step limit"


def error_reason(outcome: Error) -> str:
    """The one-line reason an error outcome is judged ``error``: ``error: CLASS: MESSAGE``."""
    return error_text(outcome.error_class, outcome.message)


def error_text(error_class: str | None, message: str | None) -> str:
    """``error_reason`` of an error of this class and message."""
    detail = ": ".join(p for p in (error_class, message) if p)
    return f"error: {detail or 'no message'}"


def missing_judgment(case_id: str, trial: int) -> Judgment:
    """The judgment on a case-trial nothing was recorded for."""
    return Judgment(
        case_id=case_id,
        trial=trial,
        status="missing",
        reason=MISSING_REASON,
        grader=GRADERLESS,
        grader_version=RULES_VERSION,
    )


def error_judgment(case_id: str, trial: int, outcome: Error) -> Judgment:
    """The judgment on an error outcome; no grader is asked."""
    return Judgment(
        case_id=case_id,
        trial=trial,
        status="error",
        reason=error_reason(outcome),
        grader=GRADERLESS,
        grader_version=RULES_VERSION,
    )


def ungraded_judgment(case_id: str, trial: int, grader: object, err: Exception) -> Judgment:
    """The judgment when ``grader`` raised ``err``: ungraded with the reason, never a
    default score."""
    return Judgment(
        case_id=case_id,
        trial=trial,
        status="ungraded",
        reason=f"the grader failed: {type(err).__name__}: {err}",
        grader=str(getattr(grader, "name", type(grader).__name__)),
        grader_version=str(getattr(grader, "version", "?")),
    )


def step_limit_judgment(case_id: str, trial: int) -> Judgment:
    """The judgment on a case-trial whose agent was stopped at its step limit."""
    return Judgment(
        case_id=case_id,
        trial=trial,
        status="failed",
        reason=STEP_LIMIT_REASON,
        grader=GRADERLESS,
        grader_version=RULES_VERSION,
    )


def stopped_at_step_limit(record: Record) -> bool:
    """Whether the record's trajectory ended at the step limit. A trajectory that cannot
    be read is not: the checks that read it say why they cannot."""
    if record.extra.get(TRAJECTORY_KEY) is None:
        return False
    try:
        trajectory = trajectory_of(record)
    except TrajectoryError:
        return False
    return trajectory is not None and trajectory.ended == "step_limit"


def _ruled(record: Record | None) -> Status | None:
    if record is None:
        return rule_status(False, False)
    return rule_status(True, _errored(record), stopped_at_step_limit(record))


def unjudged_status(record: Record | None) -> Status:
    """The status of a case-trial no grader has judged yet: ``missing`` without a record,
    ``error`` for an error outcome, ``failed`` at the step limit, else ``ungraded``."""
    status = _ruled(record)
    return "ungraded" if status is None else status


def rule_judgment(case_id: str, trial: int, record: Record | None) -> Judgment | None:
    """The judgment assay makes without a grader (missing, error, or failed at the step
    limit), or None when the case-trial needs its grader."""
    status = _ruled(record)
    if status == "missing":
        return missing_judgment(case_id, trial)
    if status == "error" and record is not None and isinstance(record.outcome, Error):
        return error_judgment(case_id, trial, record.outcome)
    if status == "failed":
        return step_limit_judgment(case_id, trial)
    return None


def _errored(record: Record) -> bool:
    return isinstance(record.outcome, Error)
