"""The http target: request templates, response mappings, HTTP failures as error classes."""

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
from assay.targets.http import fill

CTX = TargetContext(run_id="r1")


def _run(
    serve: Any, handler: Any, settings: dict[str, Any], case: Case, ctx: TargetContext = CTX
) -> Reply:
    async def scenario() -> Reply:
        async with serve(handler) as base:
            target = build_target({"type": "http", "url": f"{base}/ask", **settings})
            await target.start()  # type: ignore[attr-defined]
            try:
                return await target.run(case, ctx)
            finally:
                await target.aclose()  # type: ignore[attr-defined]

    return asyncio.run(scenario())


def test_fill_replaces_whole_values_and_interpolates_text(case: Case) -> None:
    body = fill({"q": "{{question}}", "tag": "case {{ id }} ({{metadata.lang}})", "n": 3}, case)
    assert body == {"q": case.question, "tag": "case E1 (en)", "n": 3}


def test_posts_the_filled_template_and_maps_the_reply(serve: Any, case: Case) -> None:
    seen: list[Any] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append((await request.json(), request.headers.get("traceparent")))
        return web.json_response(
            {
                "answer": {"key": "return_window_30_days", "says": "30 days"},
                "usage": {"in": 12, "out": 3},
            }
        )

    parent = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"
    reply = _run(
        serve,
        handler,
        {
            "request": {"question": "{{question}}"},
            "response": {
                "fact": "answer.key",
                "text": "answer.says",
                "input_tokens": "usage.in",
                "output_tokens": "usage.out",
            },
        },
        case,
        TargetContext(run_id="r1", traceparent=parent),
    )
    assert seen == [({"question": case.question}, parent)]
    assert reply.outcome == Answer(fact="return_window_30_days", text="30 days")
    assert reply.usage is not None and reply.usage.input_tokens == 12


def test_a_flat_outcome_reply_needs_no_mapping(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"kind": "abstain", "reason": "not in the policy"})

    assert _run(serve, handler, {}, case).outcome == Abstain(reason="not in the policy")


def test_abstain_flag_mapping(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"abstained": True, "fact": None})

    reply = _run(serve, handler, {"response": {"abstain": "abstained", "fact": "fact"}}, case)
    assert isinstance(reply.outcome, Abstain)


def test_http_statuses_become_error_classes_with_retry_after(serve: Any, case: Case) -> None:
    statuses = iter([(429, {"Retry-After": "7"}), (503, {}), (404, {})])

    async def handler(request: web.Request) -> web.Response:
        status, headers = next(statuses)
        return web.Response(status=status, text="busy", headers=headers)

    async def scenario() -> list[Reply]:
        async with serve(handler) as base:
            target = build_target({"type": "http", "url": f"{base}/ask"})
            return [await target.run(case, CTX) for _ in range(3)]

    first, second, third = asyncio.run(scenario())
    assert isinstance(first.outcome, Error) and first.outcome.error_class == "http_429"
    assert first.retry_after_s == 7.0
    assert isinstance(second.outcome, Error) and second.outcome.error_class == "http_5xx"
    assert isinstance(third.outcome, Error) and third.outcome.error_class == "http_4xx"


def test_a_malformed_reply_is_a_parse_error_keeping_the_raw_text(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.Response(text="<html>oops</html>", content_type="text/html")

    reply = _run(serve, handler, {}, case)
    assert isinstance(reply.outcome, Error)
    assert reply.outcome.error_class == "parse_error"
    assert reply.outcome.raw == "<html>oops</html>"


def test_json_that_is_not_an_outcome_is_a_parse_error(serve: Any, case: Case) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    reply = _run(serve, handler, {}, case)
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "parse_error"
    assert reply.outcome.raw is not None and json.loads(reply.outcome.raw) == {"status": "ok"}


def test_secret_headers_come_from_the_environment_and_never_come_back(
    serve: Any, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "Bearer tok-never-stored-7731"
    monkeypatch.setenv("APP_TOKEN", token)
    seen: list[str] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append(request.headers["Authorization"])
        return web.json_response({"detail": f"denied for {seen[-1]}"}, status=403)

    settings = {"headers_env": {"Authorization": "APP_TOKEN"}}
    reply = _run(serve, handler, settings, case)
    assert seen == [token]
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "http_4xx"
    assert token not in reply.outcome.model_dump_json()
    assert "denied for <redacted>" in (reply.outcome.raw or "")
    target = build_target({"type": "http", "url": "http://127.0.0.1:9/ask", **settings})
    assert token not in json.dumps(target.config())  # only the variable's name is kept


def test_a_missing_header_variable_stops_the_run_before_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ABSENT_TOKEN", raising=False)
    target = build_target(
        {"type": "http", "url": "http://127.0.0.1:9/ask", "headers_env": {"X-Key": "ABSENT_TOKEN"}}
    )
    with pytest.raises(
        AssayConfigError, match=r"target.headers_env.X-Key: .*ABSENT_TOKEN is not set"
    ):
        asyncio.run(target.start())  # type: ignore[attr-defined]
