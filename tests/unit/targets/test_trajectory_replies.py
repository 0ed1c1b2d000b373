"""An application that runs its own agent loop returns its trajectory beside the outcome
(``steps``, ``ended``, ``state_before``, ``state_after``): function and http targets keep
it in ``extra["trajectory"]``; a malformed one is a ``parse_error`` naming the field."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from tests.loopback import Serve

from assay.cases import Case
from assay.outcomes import Answer, Error, Record, trajectory_of
from assay.targets import Reply, TargetContext, as_reply, build_target
from assay.targets.function import FunctionTarget

STEPS: list[dict[str, Any]] = [
    {
        "kind": "model",
        "tool_calls": [{"id": "c1", "name": "cancel", "arguments": {"order_id": "A1"}}],
    },
    {
        "kind": "tool",
        "call": {"id": "c1", "name": "cancel", "arguments": {"order_id": "A1"}},
        "status": "error",
        "error": "service unavailable",
    },
    {"kind": "model", "text": "The cancellation failed."},
]
REPLY = {
    "kind": "answer",
    "fact": "not_cancelled",
    "steps": STEPS,
    "ended": "answered",
    "state_before": {"A1": "open"},
    "state_after": {"A1": "open"},
}


def trajectory(reply: Reply) -> Any:
    return trajectory_of(Record(case_id="E1", outcome=reply.outcome, extra=reply.extra))


def test_the_steps_beside_an_outcome_become_the_record_s_trajectory() -> None:
    reply = as_reply(REPLY)
    assert reply.outcome == Answer(fact="not_cancelled")
    got = trajectory(reply)
    assert [s.kind for s in got.steps] == ["model", "tool", "model"]
    assert got.tool_errors == 1 and got.ended == "answered"
    assert got.state_before == got.state_after == {"A1": "open"}
    ended_only = as_reply({"text": "gave up", "steps": [], "ended": "step_limit"})
    assert trajectory(ended_only).ended == "step_limit"
    assert "trajectory" not in as_reply({"fact": "f"}).extra


def test_a_malformed_trajectory_is_a_parse_error_naming_the_field() -> None:
    bad_status = {**REPLY, "steps": [{**STEPS[1], "status": "exploded"}]}
    reply = as_reply(bad_status)
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "parse_error"
    assert (reply.outcome.message or "").startswith("not a trajectory: steps.0.tool.status:")
    not_a_list = as_reply({**REPLY, "steps": "three steps"})
    assert "not a trajectory: steps:" in (not_a_list.outcome.message or "")
    bad_ending = as_reply({**REPLY, "ended": "tired"})
    assert "not a trajectory: ended:" in (bad_ending.outcome.message or "")
    assert "trajectory" not in reply.extra


def test_a_function_target_keeps_the_trajectory_its_application_returned() -> None:
    case = Case(id="E1", slice="s", question="q", expected_behavior="answer", expected_fact="f")
    reply = asyncio.run(FunctionTarget(lambda case: REPLY).run(case, TargetContext("r1")))
    assert reply.outcome == Answer(fact="not_cancelled")
    assert trajectory(reply).tool_steps[0].status == "error"


def test_an_http_target_keeps_it_with_and_without_a_response_mapping(serve: Serve) -> None:
    case = Case(id="E1", slice="s", question="q", expected_behavior="answer", expected_fact="f")

    async def handler(request: web.Request) -> web.Response:
        if request.path == "/mapped":
            return web.json_response({"answer": {"fact": "not_cancelled"}, "steps": STEPS})
        return web.json_response(REPLY)

    async def scenario() -> tuple[Reply, Reply]:
        async with serve(handler) as base:
            plain: Any = build_target({"type": "http", "url": f"{base}/plain"})
            mapped: Any = build_target(
                {"type": "http", "url": f"{base}/mapped", "response": {"fact": "answer.fact"}}
            )
            async with plain, mapped:
                ctx = TargetContext("r1")
                return await plain.run(case, ctx), await mapped.run(case, ctx)

    plain, mapped = asyncio.run(scenario())
    for reply in (plain, mapped):
        assert reply.outcome == Answer(fact="not_cancelled")
        assert [s.kind for s in trajectory(reply).steps] == ["model", "tool", "model"]
