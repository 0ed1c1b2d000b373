"""The structured grader (the seed's pass rule) and ``grade``: one status per case-trial."""

from __future__ import annotations

import pytest

from assay import Abstain, Answer, Case, Error, Record, StructuredGrader, grade
from assay.outcomes import Results

ANSWER = Case(
    id="E1",
    slice="standard",
    question="q",
    expected_behavior="answer",
    expected_fact="return_window_30_days",
    accepted_facts=("return_window_one_month",),
)
ABSTAIN = Case(id="E3", slice="missing", question="q", expected_behavior="abstain")


@pytest.mark.parametrize(
    ("case", "outcome", "status", "reason"),
    [
        (ANSWER, Answer(fact="return_window_30_days"), "passed", "answered the expected fact"),
        (ANSWER, Answer(fact="return_window_one_month"), "passed", "answered the expected fact"),
        (ANSWER, Answer(fact="custom_excluded"), "failed", "expected fact 'return_window_30_days'"),
        (ANSWER, Abstain(), "failed", "abstained"),
        (ANSWER, Answer(text="Thirty days."), "ungraded", "no fact key"),
        (ABSTAIN, Abstain(), "passed", "abstained, as expected"),
        (ABSTAIN, Answer(fact="shipping_fee_10"), "failed", "expected an abstention"),
    ],
)
def test_pass_rule(case: Case, outcome: Answer | Abstain, status: str, reason: str) -> None:
    judgment = StructuredGrader().grade(case, Record(case_id=case.id, outcome=outcome))
    assert judgment.status == status
    assert reason in judgment.reason
    assert (judgment.grader, judgment.grader_version) == ("structured", "1")
    if status == "ungraded":
        assert judgment.score is None
    else:
        assert judgment.score == float(status == "passed")


def test_errors_and_missing_outcomes_get_their_status_without_a_grader() -> None:
    records = (
        Record(case_id="E1", outcome=Error(error_class="timeout", message="slow")),
        Record(case_id="E3", trial=2, outcome=Abstain()),
    )
    graded = grade([ANSWER, ABSTAIN], Results(records), StructuredGrader())
    assert [(r.case.id, r.trial, r.status) for r in graded] == [
        ("E1", 1, "error"),
        ("E1", 2, "missing"),
        ("E3", 1, "missing"),
        ("E3", 2, "passed"),
    ]
    assert graded[0].judgment.reason == "error: timeout: slow"
    assert graded[1].record is None
    assert not any(r.answered for r in graded)


def test_every_case_trial_appears_exactly_once() -> None:
    graded = grade([ANSWER, ABSTAIN], Results(()), StructuredGrader(), trials=3)
    assert len(graded) == 6
    assert {r.status for r in graded} == {"missing"}
