"""The judgments assay makes itself, whatever the grader: ``missing`` for a case-trial with
no record, ``error`` for an error outcome (both by the status rule,
``grading._status_rule``), ``ungraded`` when a grader fails. Every pipeline (the runner,
stored reports, composite scoring, the run reader) takes them from here."""

from __future__ import annotations

from assay.grading._judgment import Judgment, Status
from assay.grading._status_rule import rule_status
from assay.outcomes import Error, Record

GRADERLESS = "assay"
RULES_VERSION = "1"
MISSING_REASON = "no recorded outcome"


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


def unjudged_status(record: Record | None) -> Status:
    """The status of a case-trial no grader has judged yet: ``missing`` without a record,
    ``error`` for an error outcome, else ``ungraded``."""
    status = rule_status(record is not None, record is not None and _errored(record))
    return "ungraded" if status is None else status


def rule_judgment(case_id: str, trial: int, record: Record | None) -> Judgment | None:
    """The judgment assay makes without a grader (missing or error), or None when the
    case-trial needs its grader."""
    status = rule_status(record is not None, record is not None and _errored(record))
    if status == "missing":
        return missing_judgment(case_id, trial)
    if status == "error" and record is not None and isinstance(record.outcome, Error):
        return error_judgment(case_id, trial, record.outcome)
    return None


def _errored(record: Record) -> bool:
    return isinstance(record.outcome, Error)
