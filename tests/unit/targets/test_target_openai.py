"""The openai target: the structured-outcome request, reply parsing, usage, the API key."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp import web

from assay.cases import Case
from assay.errors import AssayConfigError
from assay.outcomes import Abstain, Answer, Error
from assay.targets import Reply, TargetContext, build_target
from assay.targets.openai import OpenAITarget

CTX = TargetContext(run_id="r1")
KEY = "sk-test-do-not-store-4242"


def _completion(content: str, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": usage or {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }


def _call(serve: Any, handler: Any, case: Case, **settings: Any) -> Reply:
    async def scenario() -> Reply:
        async with serve(handler) as base:
            target = build_target(
                {"type": "openai", "base_url": f"{base}/v1", "model": "m-1", **settings}
            )
            await target.start()  # type: ignore[attr-defined]
            try:
                return await target.run(case, CTX)
            finally:
                await target.aclose()  # type: ignore[attr-defined]

    return asyncio.run(scenario())


def test_asks_for_the_structured_outcome_and_parses_it(
    serve: Any, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_OPENAI_KEY", KEY)
    seen: list[tuple[str, dict[str, Any], str | None]] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append((request.path, await request.json(), request.headers.get("Authorization")))
        content = json.dumps(
            {
                "kind": "answer",
                "fact": "return_window_30_days",
                "text": "30 days.",
                "citations": ["standard-window"],
            }
        )
        return web.json_response(_completion(content))

    reply = _call(
        serve, handler, case, api_key_env="TEST_OPENAI_KEY", seed=7, system_prompt="Be brief."
    )
    path, body, auth = seen[0]
    assert path == "/v1/chat/completions"
    assert auth == f"Bearer {KEY}"
    assert body["model"] == "m-1" and body["seed"] == 7 and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": case.question},
    ]
    assert reply.outcome == Answer(
        fact="return_window_30_days", text="30 days.", citations=("standard-window",)
    )
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (20, 5)


def test_the_request_goes_out_as_json_writes_its_body(serve: Any, case: Case) -> None:
    """The body's bytes on the wire, for two settings of one target: the text of the items
    other than the messages is made again when the target's settings change."""
    sent: list[bytes] = []

    async def handler(request: web.Request) -> web.Response:
        sent.append(await request.read())
        return web.json_response(_completion('{"kind": "abstain"}'))

    async def scenario() -> list[bytes]:
        async with serve(handler) as base:
            target = build_target({"type": "openai", "base_url": f"{base}/v1", "model": "m-1"})
            assert isinstance(target, OpenAITarget)
            expected = []
            await target.start()
            try:
                for update in ({}, {"model": "m-2", "temperature": 0.5, "seed": 3}):
                    target.settings = target.settings.model_copy(update=update)
                    body = target.body(case)
                    expected.append(json.dumps(body, ensure_ascii=False).encode())
                    await target.run(case, CTX)
            finally:
                await target.aclose()
            return expected

    expected = asyncio.run(scenario())
    assert sent == expected
    assert b'"model": "m-2"' in sent[1] and b'"seed": 3' in sent[1]


def test_an_abstention_drops_the_null_fact(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        content = json.dumps(
            {"kind": "abstain", "fact": None, "text": "Not stated.", "citations": []}
        )
        return web.json_response(_completion(content))

    assert _call(serve, handler, case).outcome == Abstain(text="Not stated.")


def test_unparsable_content_is_a_parse_error_with_the_raw_reply(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response(_completion("The answer is 30 days."))

    reply = _call(serve, handler, case)
    assert isinstance(reply.outcome, Error)
    assert reply.outcome.error_class == "parse_error"
    assert reply.outcome.raw == "The answer is 30 days."
    assert reply.usage is not None  # the tokens were spent all the same


def test_a_reply_without_choices_is_a_parse_error(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"error": {"message": "bad"}})

    reply = _call(serve, handler, case)
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "parse_error"


def test_a_missing_key_variable_is_a_config_error(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ABSENT_KEY_VAR", raising=False)
    target = build_target(
        {
            "type": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "api_key_env": "ABSENT_KEY_VAR",
        }
    )
    with pytest.raises(AssayConfigError, match="ABSENT_KEY_VAR is not set"):
        asyncio.run(target.start())  # type: ignore[attr-defined]


def test_the_config_names_the_variable_never_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_OPENAI_KEY", KEY)
    target = build_target(
        {
            "type": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "api_key_env": "TEST_OPENAI_KEY",
        }
    )
    assert target.config()["api_key_env"] == "TEST_OPENAI_KEY"
    assert KEY not in json.dumps(target.config())


def test_a_server_echoing_the_key_in_an_error_never_gets_it_stored(
    serve: Any, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_OPENAI_KEY", KEY)

    async def handler(request: web.Request) -> web.Response:
        echoed = request.headers["Authorization"]
        return web.json_response({"error": f"invalid key: {echoed}"}, status=401)

    reply = _call(serve, handler, case, api_key_env="TEST_OPENAI_KEY")
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "http_4xx"
    assert reply.outcome.raw is not None and "Bearer <redacted>" in reply.outcome.raw
    assert KEY not in reply.outcome.model_dump_json()
