"""The ``agent`` target's settings: a scripted ``function`` model, what a failing or
misbehaving one ends as, what the run's config and ``--dry-run`` show, and settings that
are refused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.cases import Case
from assay.errors import InputFormatError
from assay.outcomes import Answer, Error, Record, trajectory_of
from assay.targets import Reply, TargetContext, build_target

SHOP = "tests.unit.agents.shop"
CASE = Case(id="E1", slice="s", question="1 + 2?", expected_behavior="abstain")


def agent(model: dict[str, Any], **settings: Any) -> Any:
    return build_target({"type": "agent", "model": model, "tools": [f"{SHOP}:add"], **settings})


def run(target: Any) -> Reply:
    async def go() -> Reply:
        async with target:
            reply: Reply = await target.run(CASE, TargetContext("r1"))
            return reply

    return asyncio.run(go())


def ended(reply: Reply) -> str:
    got = trajectory_of(Record(case_id="E1", outcome=reply.outcome, extra=reply.extra))
    assert got is not None
    return got.ended


def test_a_function_model_drives_the_loop() -> None:
    reply = run(agent({"function": f"{SHOP}:adding_model"}))
    assert reply.outcome == Answer(text="It is 3.")
    assert ended(reply) == "answered"
    sent = reply.extra["transcript"]["messages"][1]
    assert sent["tool_calls"][0]["id"] == "call_1_1"  # given an id, its arguments as JSON text
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b": 2}'


def test_a_function_model_that_fails_or_misbehaves_ends_the_loop_as_a_model_error() -> None:
    failed = run(agent({"function": f"{SHOP}:failing_model"}))
    assert isinstance(failed.outcome, Error)
    assert failed.outcome.error_class == "connection_error"
    assert ended(failed) == "model_error"
    wordy = run(agent({"function": f"{SHOP}:wordy_model"}))
    assert isinstance(wordy.outcome, Error) and wordy.outcome.error_class == "parse_error"
    assert "returned str, not a message object" in (wordy.outcome.message or "")
    assert ended(wordy) == "model_error"


def test_the_config_holds_the_tools_as_offered_and_a_dry_run_the_first_request() -> None:
    target = agent(
        {"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "KEY"},
        system="Be brief.",
        seed=7,
    )
    config = target.config()
    assert config["type"] == "agent" and config["max_steps"] == 10
    assert config["tool_specs"][0]["function"]["name"] == "add"
    shown = target.request(CASE)
    assert shown["agent"]["headers"]["Authorization"] == "Bearer <$KEY>"
    body = shown["agent"]["body"]
    assert body["seed"] == 7 and body["temperature"] == 0.0
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["tools"][0]["function"]["name"] == "add"
    assert "parallel_tool_calls" not in body and "tool_choice" not in body
    assert "tool_choice" not in config


def test_tool_choice_is_sent_as_given() -> None:
    target = agent({"base_url": "http://127.0.0.1:9/v1", "model": "m"}, tool_choice="auto")
    assert target.request(CASE)["agent"]["body"]["tool_choice"] == "auto"
    assert target.config()["tool_choice"] == "auto"


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"model": {"model": "m"}}, "target.model: give base_url and model"),
        (
            {"model": {"function": f"{SHOP}:adding_model", "model": "m"}},
            "give either function or base_url and model, not both",
        ),
        ({"model": {"function": "shop.adding_model"}}, "is not module:function"),
        ({"max_steps": 0}, "target.max_steps"),
        ({"tools": ["add"]}, "target.tools[0].ref: 'add' is not module:function"),
        ({"tools": [f"{SHOP}:add", f"{SHOP}:add"]}, "a second tool named 'add'; give name:"),
        (
            {"tools": [{"ref": f"{SHOP}:add", "name": "a b"}]},
            "target.tools[0].name: string should match",
        ),
        ({"tools": [f"{SHOP}:opaque"]}, "target.tools[0] tests.unit.agents.shop:opaque: a type"),
    ],
)
def test_settings_that_cannot_work_are_refused(settings: dict[str, Any], said: str) -> None:
    full = {"type": "agent", "model": {"function": f"{SHOP}:adding_model"}, **settings}
    with pytest.raises(InputFormatError) as raised:
        build_target(full)
    assert said in str(raised.value)


def test_a_model_past_the_step_timeout_ends_the_loop_as_a_timeout() -> None:
    reply = run(agent({"function": f"{SHOP}:slow_model"}, step_timeout_s=0.2))
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "timeout"
    assert reply.outcome.message == "the model did not reply within 0.2 s (step_timeout_s)"
    assert ended(reply) == "timeout"
