"""The judgments assay makes itself are the same whichever pipeline meets the case-trial."""

from __future__ import annotations

from assay.cases import Case, Dataset
from assay.errors import Location
from assay.grading import StructuredGrader, grade, judge_record, rule_judgment, unjudged_status
from assay.grading.checks import CompositeScorer, composite_all
from assay.grading.checks import parse_composite_results as parse
from assay.outcomes import Abstain, Error, Record, Results
from assay.runs._case import StoredRun

CASE = Case(id="c1", slice="s", question="q?", expected_behavior="abstain")
FAILED = Record(case_id="c1", trial=1, outcome=Error(error_class="Timeout", message="slow"))


class Raising:
    name = "raising"
    version = "7"

    def grade(self, case: Case, record: Record) -> object:
        raise ValueError("boom")


def test_an_error_outcome_gets_one_judgment_in_every_pipeline() -> None:
    structured = grade([CASE], Results((FAILED,)), StructuredGrader())[0].judgment
    line = {"id": "c1", "kind": "error", "error_class": "Timeout", "message": "slow"}
    inputs = parse([(Location("r.jsonl", 1), line)], "r.jsonl", [])
    composite = composite_all([CASE], inputs, CompositeScorer())[0].judgment
    read = StoredRun("r", 1, Dataset(name="d", cases=(CASE,)), {FAILED.key: FAILED}, {})
    assert structured == composite == read.judgment(CASE, 1) == rule_judgment("c1", 1, FAILED)
    assert structured.status == "error" and structured.reason == "error: Timeout: slow"
    assert structured.grader == "assay"


def test_missing_and_ungraded_are_made_by_the_rules() -> None:
    (missing,) = grade([CASE], Results(()), StructuredGrader())
    assert missing.judgment == rule_judgment("c1", 1, None)
    assert (missing.status, missing.reason) == ("missing", "no recorded outcome")
    answered = Record(case_id="c1", trial=1, outcome=Abstain(reason="unsure"))
    ungraded = judge_record(CASE, answered, Raising())  # type: ignore[arg-type]
    assert ungraded.status == "ungraded"
    assert ungraded.reason == "the grader failed: ValueError: boom"
    assert (ungraded.grader, ungraded.grader_version) == ("raising", "7")
    assert rule_judgment("c1", 1, answered) is None


def test_a_case_trial_no_grader_judged_has_the_rules_status() -> None:
    answered = Record(case_id="c1", trial=1, outcome=Abstain(reason="unsure"))
    assert [unjudged_status(r) for r in (None, FAILED, answered)] == [
        "missing",
        "error",
        "ungraded",
    ]
