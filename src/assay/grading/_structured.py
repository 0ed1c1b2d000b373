"""The structured grader: the seed's pass rule over fact keys and abstentions."""

from __future__ import annotations

from typing import Protocol

from assay._fast.shared_fields import shared_field_names
from assay._fast.unvalidated import checked_instance
from assay.cases import Case
from assay.grading._judgment import Judgment, Status
from assay.outcomes import Abstain, Answer, Record


class StructuredGrader:
    """Passes an expected abstention that abstained, or an expected answer whose fact is
    the expected fact or one of the case's ``accepted_facts``.

    An answer without a fact key to a case that expects an answer cannot be judged here: it
    is ``ungraded``, with the reason. Where an abstention is expected any answer fails.
    """

    name = "structured"
    version = "1"

    def grade(self, case: Case, record: Record) -> Judgment:
        """Passed when the outcome matches the case's expected behaviour and fact."""
        status, reason = structured_verdict(case, record)
        # Every value is already of its field's type: made as validation would make it.
        values = {"case_id": case.id, "trial": record.trial, "status": status}
        values |= {"reason": reason, "grader": self.name, "grader_version": self.version}
        values |= {"score": None if status == "ungraded" else float(status == "passed")}
        values["labels"] = ()
        return checked_instance(Judgment, values, _GIVEN)


_GIVEN = shared_field_names(
    frozenset({"case_id", "trial", "status", "reason", "grader", "grader_version", "score"})
)


class Labels(Protocol):
    """What the structured grader reads of a case (a ``Case`` is one)."""

    @property
    def expected_behavior(self) -> str: ...

    @property
    def expected_fact(self) -> str | None: ...

    @property
    def facts(self) -> frozenset[str]: ...


def structured_verdict(case: Case, record: Record) -> tuple[Status, str]:
    outcome = record.outcome
    if isinstance(outcome, Abstain):
        return abstained_verdict(case)
    if not isinstance(outcome, Answer):
        raise TypeError(f"the structured grader does not grade {outcome.kind} outcomes")
    return answered_verdict(case, outcome.fact)


def abstained_verdict(case: Labels) -> tuple[Status, str]:
    """The structured grader's status and reason for an abstention to ``case``."""
    if case.expected_behavior == "abstain":
        return "passed", "abstained, as expected"
    return "failed", f"expected an answer with fact '{case.expected_fact}'; abstained"


def answered_verdict(case: Labels, fact: str | None) -> tuple[Status, str]:
    """The structured grader's status and reason for an answer to ``case`` whose fact key
    is ``fact``."""
    if case.expected_behavior == "abstain":
        # Any answer is wrong where an abstention is expected, with or without a fact key.
        answered = f"'{fact}'" if fact is not None else "without a fact key"
        return "failed", f"expected an abstention; answered {answered}"
    if fact is None:
        return "ungraded", "the answer carries no fact key; the structured grader needs one"
    if fact in case.facts:
        return "passed", f"answered the expected fact '{fact}'"
    return "failed", f"expected fact '{case.expected_fact}'; answered '{fact}'"
