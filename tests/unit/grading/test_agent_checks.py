"""The checks of an agent's path and final state, on hand-made trajectories."""

from __future__ import annotations

from typing import Any

import pytest

from assay.cases import Case
from assay.grading.checks import (
    AGENT_PROFILE,
    CheckInput,
    CompositeScorer,
    path_matches,
    state_matches,
)
from assay.outcomes import (
    Abstain,
    Answer,
    ModelStep,
    Record,
    ToolCall,
    ToolStatus,
    ToolStep,
    Trajectory,
    trajectory_extra,
)


def case(*expect: dict[str, Any]) -> Case:
    return Case(
        id="A1", slice="agent", question="Refund order A1001.", expected_behavior="abstain",
        expect=expect,
    )  # fmt: skip


def tool(name: str, status: ToolStatus = "ok", **arguments: Any) -> ToolStep:
    return ToolStep(call=ToolCall(name=name, arguments=arguments), status=status)


def turn() -> ModelStep:
    return ModelStep(text="...")


# step 1 model, 2 lookup_order, 3 model, 4 issue_refund, 5 model, 6 notify, 7 model
PATH = Trajectory(
    steps=(
        turn(),
        tool("lookup_order", order="A1001"),
        turn(),
        tool("issue_refund", order="A1001", amount=12.5, notify=True),
        turn(),
        tool("notify", channel="email"),
        turn(),
    ),
    state_after={"orders": {"A1001": {"status": "refunded", "lines": [{"sku": "X"}]}}},
)


def check(expect: list[dict[str, Any]], trajectory: Trajectory | None = PATH) -> Any:
    return path_matches(CheckInput(case(*expect), Answer(text="done"), trajectory=trajectory))


@pytest.mark.parametrize(
    "expect",
    [
        {"tool_called": "issue_refund"},
        {"tool_called": "issue_refund", "args": {"order": "A1001"}},
        {"tool_called": "issue_refund", "args_match": {"amount": r"\d+\.\d", "order": "A\\d+"}},
        {"tool_called": "issue_refund", "args_schema": {"required": ["order", "amount"]}},
        {"tool_not_called": "delete_account"},
        {"calls_in_order": ["lookup_order", "notify"]},
        {"max_steps": 4},
        {"max_calls": {"issue_refund": 1, "lookup_order": 1}},
        {"no_call_after_refusal": True},
    ],
)
def test_each_path_expectation_the_trajectory_meets_passes(expect: dict[str, Any]) -> None:
    result = check([expect])
    assert result.passed is True, result.reason


@pytest.mark.parametrize(
    ("expect", "reason"),
    [
        (
            {"tool_called": "cancel_order"},
            "expected a call of cancel_order, none was made "
            "(calls: lookup_order, issue_refund, notify)",
        ),
        (
            {"tool_called": "issue_refund", "args": {"order": "A1002"}},
            'step 4: issue_refund was called with {"amount": 12.5, "notify": true, '
            '"order": "A1001"}, not {"order": "A1002"}',
        ),
        (
            {"tool_called": "issue_refund", "args": {"notify": 1}},  # true is not 1
            'step 4: issue_refund was called with {"amount": 12.5, "notify": true, '
            '"order": "A1001"}, not {"notify": 1}',
        ),
        (
            {"tool_called": "issue_refund", "args_match": {"amount": r"\d+"}},
            "step 4: issue_refund argument amount 12.5 does not match '\\\\d+'",
        ),
        (
            {"tool_called": "issue_refund", "args_match": {"reason": ".*"}},
            "step 4: issue_refund argument reason is absent",
        ),
        (
            {"tool_called": "issue_refund", "args_schema": {"required": ["reason"]}},
            "step 4: issue_refund's arguments break args_schema: 'reason' is a required property",
        ),
        (
            {"tool_not_called": "notify"},
            "step 6: notify was called, which the case forbids",
        ),
        (
            {"calls_in_order": ["issue_refund", "lookup_order"]},
            "expected calls in order issue_refund → lookup_order, but no lookup_order after step 4 "
            "(calls: lookup_order, issue_refund, notify)",
        ),
        ({"max_steps": 2}, "step 5: model turn 3 of at most 2 (4 taken)"),
        ({"max_calls": {"notify": 0}}, "step 6: call 1 of notify, at most 0 expected"),
    ],
)
def test_each_unmet_path_expectation_fails_naming_the_step(
    expect: dict[str, Any], reason: str
) -> None:
    result = check([expect])
    assert (result.passed, result.reason) == (False, reason)


def test_a_call_after_a_refusal_fails_when_the_case_forbids_it() -> None:
    refused = Trajectory(
        steps=(turn(), tool("issue_refund", "refused"), turn(), tool("issue_refund"), turn())
    )
    result = check([{"no_call_after_refusal": True}], refused)
    assert (result.passed, result.reason) == (
        False,
        "step 4: issue_refund was called after issue_refund refused at step 2",
    )
    assert check([{"no_call_after_refusal": False}], refused).passed is True


def test_every_unmet_expectation_is_in_the_one_line_reason() -> None:
    result = check([{"tool_not_called": "notify"}, {"max_steps": 1}, {"tool_called": "notify"}])
    assert result.passed is False
    assert result.reason.count("; ") == 1 and "\n" not in result.reason
    assert result.reason.startswith("step 6: notify was called")


def test_without_a_trajectory_a_path_or_state_expectation_cannot_be_judged() -> None:
    for expect, checked in (
        ({"max_steps": 3}, path_matches),
        ({"state_equals": {"a": 1}}, state_matches),
    ):
        subject = CheckInput(case(expect), Answer(text="done"))
        result = checked(subject)
        assert result.passed is None
        assert (
            result.reason == "cannot evaluate: no trajectory recorded (the target is not an agent)"
        )
    # a case that expects nothing of the path or state has nothing to judge
    assert path_matches(CheckInput(case({"state_equals": {"a": 1}}), Abstain())).passed is True
    assert state_matches(CheckInput(case({"max_steps": 3}), Abstain())).passed is True


def test_the_final_state_holds_each_dotted_path() -> None:
    def state(expected: dict[str, Any], trajectory: Trajectory = PATH) -> Any:
        return state_matches(
            CheckInput(case({"state_equals": expected}), Answer(text="x"), trajectory=trajectory)
        )

    assert state({"orders.A1001.status": "refunded", "orders.A1001.lines.0.sku": "X"}).passed
    wrong = state({"orders.A1001.status": "open", "orders.A1002.status": "open"})
    assert (wrong.passed, wrong.reason) == (
        False,
        'final state: orders.A1001.status is "refunded", expected "open"; '
        'orders.A1002.status is absent, expected "open"',
    )
    # a mapping must equal the expected one exactly, not merely contain it
    assert state({"orders.A1001": {"status": "refunded"}}).passed is False
    stateless = state({"orders.A1001.status": "refunded"}, Trajectory(steps=()))
    assert stateless.passed is None
    assert (
        stateless.reason == "cannot evaluate: the trajectory records no final state (state_after)"
    )


def test_the_scorer_gives_the_checks_the_record_s_trajectory() -> None:
    scorer = CompositeScorer(AGENT_PROFILE)
    expect = ({"state_equals": {"orders.A1001.status": "refunded"}}, {"max_steps": 4})
    record = Record(
        case_id="A1", outcome=Answer(text="Your refund of $12.50 has been issued."),
        extra={"trajectory": trajectory_extra(PATH)},
    )  # fmt: skip
    judged = scorer.grade(case(*expect), record)
    assert (judged.status, judged.score) == ("passed", 1.0)
    bare = scorer.grade(case(*expect), record.model_copy(update={"extra": {}}))
    assert bare.status == "ungraded"
    assert "no trajectory recorded" in bare.reason
    broken = record.model_copy(update={"extra": {"trajectory": {"steps": [{"kind": "x"}]}}})
    assert (
        "the recorded trajectory is invalid: extra.trajectory.steps.0"
        in scorer.grade(case(*expect), broken).reason
    )
