"""The judgments assay makes itself are the same whichever pipeline meets the case-trial."""

from __future__ import annotations

from assay.cases import Case, Dataset
from assay.errors import Location
from assay.grading import (
    STEP_LIMIT_REASON,
    StructuredGrader,
    grade,
    judge_record,
    rule_judgment,
    unjudged_status,
)
from assay.grading.checks import CompositeInputs, CompositeScorer, composite_all
from assay.grading.checks import parse_composite_results as parse
from assay.outcomes import Abstain, Error, Record, Results, Trajectory, trajectory_extra
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


def _stopped(outcome: Abstain | Error, ended: str = "step_limit") -> Record:
    trajectory = Trajectory.model_validate(
        {"steps": [{"kind": "model", "text": "..."}], "ended": ended}
    )
    return Record(
        case_id="c1", trial=1, outcome=outcome, extra={"trajectory": trajectory_extra(trajectory)}
    )


def test_an_agent_stopped_at_its_step_limit_has_failed_whatever_the_grader() -> None:
    stopped = _stopped(Abstain(reason="ran out of steps"))
    # without its trajectory, the structured grader passes this abstention
    unstopped = stopped.model_copy(update={"extra": {}})
    assert judge_record(CASE, unstopped, StructuredGrader()).status == "passed"
    structured = grade([CASE], Results((stopped,)), StructuredGrader())[0].judgment
    assert (structured.status, structured.reason) == ("failed", STEP_LIMIT_REASON)
    assert structured.grader == "assay"
    assert judge_record(CASE, stopped, Raising()) == structured  # the grader is not asked
    scored = composite_all([CASE], CompositeInputs(Results((stopped,))), CompositeScorer())
    assert scored[0].judgment == structured and scored[0].composite is None
    assert unjudged_status(stopped) == "failed"
    read = StoredRun("r", 1, Dataset(name="d", cases=(CASE,)), {stopped.key: stopped}, {})
    assert read.judgment(CASE, 1) == structured


def test_a_step_limit_with_an_error_outcome_stays_an_error() -> None:
    stopped = _stopped(Error(error_class="model_error", message="502"))
    judgment = rule_judgment("c1", 1, stopped)
    assert judgment is not None and judgment.status == "error"
    assert judgment.reason == "error: model_error: 502"
    assert unjudged_status(stopped) == "error"


def test_other_endings_and_unreadable_trajectories_leave_it_to_the_grader() -> None:
    answered = _stopped(Abstain(reason="unsure"), ended="answered")
    assert rule_judgment("c1", 1, answered) is None
    broken = Record(case_id="c1", trial=1, outcome=Abstain(), extra={"trajectory": {"ended": 3}})
    assert rule_judgment("c1", 1, broken) is None
    assert grade([CASE], Results((broken,)), StructuredGrader())[0].status == "passed"
