"""The agent rules of diagnose: each names the step behind a failed agent case, read off
its trajectory and the case's expectations, in the words of the check that failed it."""

from __future__ import annotations

from typing import Any

from tests.agent_runs import asks, refund_done, refund_failed, says, tool

from assay.cases import Case
from assay.diagnose import Finding, diagnose
from assay.grading import Judgment
from assay.outcomes import Abstain, Answer, Outcome, Record, Trajectory, trajectory_extra


def _found(
    trajectory: Trajectory | dict[str, Any],
    *expect: dict[str, Any],
    outcome: Outcome | None = None,
) -> Finding:
    case = Case(
        id="C",
        slice="s",
        question="q",
        expected_behavior="answer",
        expected_fact="f",
        expect=expect,
    )
    kept = trajectory if isinstance(trajectory, dict) else trajectory_extra(trajectory)
    record = Record(case_id="C", outcome=outcome or Answer(fact="done"), extra={"trajectory": kept})
    judgment = Judgment(
        case_id="C", status="failed", reason="checks failed", grader="g", grader_version="1"
    )
    return diagnose(case, record, judgment, [])


def test_an_ignored_tool_error_names_its_step() -> None:
    found = _found(refund_failed())
    assert (found.rule, found.stage, found.step) == ("tool-error-ignored", "tool_handling", 4)
    assert "payment service unavailable" in found.evidence[1]


def test_a_tool_error_retried_with_success_is_not_ignored() -> None:
    retried = Trajectory(
        steps=(
            tool("refund", 1, "error", error="busy", id=1),
            tool("refund", 2, result="ok", id=1),
            says("done"),
        )
    )
    assert _found(retried).rule != "tool-error-ignored"


def test_an_abstention_after_a_tool_error_ignores_nothing() -> None:
    found = _found(refund_failed(), outcome=Abstain(reason="the refund failed"))
    assert found.rule != "tool-error-ignored"


def test_a_forbidden_tool_names_the_call() -> None:
    path = Trajectory(steps=(asks("delete", 1, id=1), tool("delete", 1, id=1), says("done")))
    found = _found(path, {"tool_not_called": "delete"})
    assert (found.rule, found.step) == ("wrong-tool", 2)
    assert found.evidence[1] == "step 2 (tool execution): delete was called, which the case forbids"


def test_too_many_calls_and_a_call_after_a_refusal_are_wrong_calls() -> None:
    path = Trajectory(
        steps=(
            tool("pay", 1, "refused", error="over the limit", id=1),
            tool("lookup", 2, id=1),
            tool("lookup", 3, id=1),
            says("done"),
        )
    )
    refused = Abstain(reason="refused")  # the refusal reported: none ignored
    found = _found(path, {"max_calls": {"lookup": 1}}, outcome=refused)
    assert (found.rule, found.step) == ("wrong-tool", 3)
    found = _found(path, {"no_call_after_refusal": True}, outcome=refused)
    assert (found.rule, found.step) == ("wrong-tool", 2)
    assert "lookup was called after pay refused at step 1" in found.evidence[1]


def test_a_missing_call_is_named_with_the_tools_that_were_called() -> None:
    path = Trajectory(steps=(asks("lookup", 1), tool("lookup", 1), says("done")))
    found = _found(path, {"tool_called": "refund"})
    assert (found.rule, found.step) == ("missing-call", None)
    assert found.evidence[1] == "expected a call of refund, none was made (calls: lookup)"
    found = _found(refund_done(), {"tool_called": "issue_refund", "args": {"amount": 99}})
    assert (found.rule, found.step) == ("missing-call", 4)
    found = _found(refund_done(), {"calls_in_order": ["issue_refund", "lookup_order"]})
    assert found.rule == "missing-call"
    assert "expected calls in order issue_refund → lookup_order" in found.evidence[1]


def test_an_answer_the_state_contradicts_names_the_answer_step() -> None:
    path = refund_done().model_copy(update={"state_after": {"refunded": []}})
    found = _found(path, {"state_equals": {"refunded": ["o1"]}})
    assert (found.rule, found.step) == ("state-contradiction", 5)
    assert 'refunded is [], expected ["o1"]' in found.evidence
    found = _found(refund_done(), {"state_equals": {"refunded.0": "o2"}})
    assert 'refunded.0 is "o1", expected "o2"' in found.evidence
    assert _found(refund_done(), {"state_equals": {"refunded": ["o1"]}}).rule != (
        "state-contradiction"
    )


def test_the_step_limit_comes_first() -> None:
    path = refund_failed().model_copy(update={"ended": "step_limit"})
    found = _found(path)
    assert (found.rule, found.stage, found.step) == ("step-limit", "generation", 5)
    found = _found(refund_done(), {"max_steps": 2})  # three model turns
    assert (found.rule, found.step) == ("too-many-steps", 5)
    assert found.evidence[1] == "3 model turns, more than the case's max_steps 2"
    assert _found(refund_done(), {"max_steps": 3}).rule != "too-many-steps"


def test_a_trajectory_that_cannot_be_read_is_said_not_raised() -> None:
    found = _found({"steps": "nonsense"})
    assert found.rule == "bad-trajectory" and found.stage is None
