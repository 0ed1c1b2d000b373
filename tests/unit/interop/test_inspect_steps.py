"""An inspect_ai sample's tool calls read as a trajectory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.interop import ScoreRule, import_inspect
from assay.interop._inspect_steps import trajectory_from_sample
from assay.outcomes import ModelStep, ToolStep, trajectory_of

# Written by inspect_ai 0.3.285 itself (tests/data/interop/write_inspect_agent_log.py).
LOG = Path(__file__).parents[2] / "data" / "interop" / "inspect_ai" / "returns_desk_tools.eval"


def _tools(sample: str) -> list[tuple[str, str]]:
    run = import_inspect(LOG, rule=ScoreRule())
    (record,) = [r for r in run.records if r.case_id == sample]
    trajectory = trajectory_of(record)
    assert trajectory is not None
    return [(s.tool, s.status) for s in trajectory.tool_steps]


def test_a_failed_tool_is_an_error_step_between_the_model_turns() -> None:
    run = import_inspect(LOG, rule=ScoreRule())
    (record,) = [r for r in run.records if r.case_id == "refund"]
    trajectory = trajectory_of(record)
    assert trajectory is not None
    assert [s.kind for s in trajectory.steps] == ["model", "tool", "model", "tool", "model"]
    assert _tools("refund") == [("lookup_order", "ok"), ("issue_refund", "error")]
    failed = trajectory.tool_steps[1]
    assert failed.error == "refund service unavailable"
    assert failed.call.arguments == {"order_id": "A1"}
    assert trajectory.tool_errors == 1 and trajectory.malformed_calls == 0
    final = trajectory.steps[-1]
    assert isinstance(final, ModelStep) and final.tool_calls == ()
    assert final.text == "Your refund for order A1 has been issued."


def test_a_tool_inspect_did_not_find_is_an_unknown_tool() -> None:
    assert _tools("unknown") == [("cancel_order", "unknown_tool")]
    assert _tools("lookup") == [("lookup_order", "ok")]


def _sample(tool_message: dict[str, Any], call: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": "refund A1"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "tool_calls": [call],
            },
            {"role": "tool", "tool_call_id": "c1", "function": "refund", **tool_message},
        ],
        **more,
    }


CALL = {"id": "c1", "function": "refund", "arguments": {"order": "A1"}}


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (None, "ok"),
        ({"type": "approval", "message": "the operator rejected it"}, "refused"),
        ({"type": "parsing", "message": "Tool refund not found"}, "unknown_tool"),
        ({"type": "parsing", "message": "bad argument order"}, "malformed"),
        ({"type": "timeout", "message": "took too long"}, "error"),
    ],
)
def test_each_inspect_error_type_maps_to_one_tool_status(
    error: dict[str, str] | None, status: str
) -> None:
    trajectory = trajectory_from_sample(_sample({"content": "done", "error": error}, CALL))
    assert trajectory is not None
    (step,) = trajectory.tool_steps
    assert isinstance(step, ToolStep) and step.status == status
    assert step.error == (error["message"] if error else None)
    assert trajectory.model_steps[0].text == "ok"


def test_arguments_inspect_could_not_parse_are_a_malformed_call() -> None:
    call = {"id": "c1", "function": "refund", "arguments": {}, "parse_error": "not JSON: {ord"}
    trajectory = trajectory_from_sample(_sample({"content": ""}, call))
    assert trajectory is not None
    (step,) = trajectory.tool_steps
    assert step.status == "malformed" and step.call.arguments is None
    assert step.call.raw_arguments == "not JSON: {ord"


@pytest.mark.parametrize(
    ("limit", "ended"), [("message", "step_limit"), ("time", "timeout"), ("token", "answered")]
)
def test_inspect_limits_end_the_trajectory(limit: str, ended: str) -> None:
    sample = _sample({"content": "x"}, CALL, limit={"type": limit, "limit": 3})
    trajectory = trajectory_from_sample(sample)
    assert trajectory is not None and trajectory.ended == ended


def test_a_sample_without_tool_calls_has_no_trajectory() -> None:
    sample = {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}
    assert trajectory_from_sample(sample) is None
