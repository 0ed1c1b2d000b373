"""The judge's calls go through the runner's machinery: retried on 429/5xx with the
server's waits, bounded by the timeout, and every failure an ungraded judgment with the
reason; its usage is kept on the judgment, apart from the target's."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp import web
from tests.loopback import Serve

from assay.cases import Case, RequiredFact
from assay.errors import AssayConfigError
from assay.grading.judge import JudgeConfig, JudgeEndpoint, JudgeGrader, JudgeRubric
from assay.outcomes import Abstain, Answer, Error, Record
from assay.runner import JudgeRunner, Timing, judge_all

CASE = Case(
    id="E1",
    slice="s",
    question="How many days?",
    expected_behavior="answer",
    expected_fact="return_30",
    required=(RequiredFact(fact="30 days"),),
)
RECORD = Record(case_id="E1", outcome=Answer(text="Within 30 days of delivery."))
GOOD = {
    "score": 2,
    "findings": [{"id": "R1", "verdict": "present", "evidence": "30 days"}],
    "rationale": "States the window.",
}


def _completion(content: str) -> web.Response:
    return web.json_response(
        {
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 321, "completion_tokens": 45},
        }
    )


def _runner(base: str, waits: list[float], **endpoint: Any) -> JudgeRunner:
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    grader = JudgeGrader(
        JudgeConfig(model="m"),
        JudgeRubric(),
        endpoint=JudgeEndpoint(base_url=base + "/v1", **endpoint),
    )
    return JudgeRunner(grader, Timing(sleep, random=lambda: 0.0), nonce=lambda: "n" * 24)


def test_a_judged_record_passes_with_its_provenance_and_usage(serve: Serve) -> None:
    seen: list[dict[str, Any]] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append(await request.json())
        return _completion(json.dumps(GOOD))

    async def scenario() -> Any:
        async with serve(handler) as base:
            return await judge_all(_runner(base, []), [(CASE, RECORD)])

    [judgment] = asyncio.run(scenario())
    assert judgment.status == "passed" and judgment.score == 2.0
    assert judgment.grader == "judge" and judgment.grader_version.startswith("1+")
    labels = set(judgment.labels)
    assert {"judge_model=m", "judge_input_tokens=321", "judge_output_tokens=45"} <= labels
    assert any(label.startswith("rubric_version=") for label in labels)
    assert "prompt_version=judge-prompt-2" in labels
    assert seen[0]["model"] == "m" and "<<CANDIDATE-nnnn" in seen[0]["messages"][-1]["content"]


def test_5xx_then_success_is_retried_with_the_server_wait(serve: Serve) -> None:
    replies = iter(
        [
            web.json_response({"error": "busy"}, status=503, headers={"Retry-After": "3"}),
            _completion(json.dumps(GOOD)),
        ]
    )

    async def handler(request: web.Request) -> web.Response:
        return next(replies)

    waits: list[float] = []

    async def scenario() -> Any:
        async with serve(handler) as base:
            return await judge_all(_runner(base, waits), [(CASE, RECORD)])

    [judgment] = asyncio.run(scenario())
    assert judgment.status == "passed"
    assert "judge_attempts=2" in judgment.labels
    assert waits == [3.0]


def test_failures_after_every_retry_are_ungraded_with_the_reason(serve: Serve) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"error": "model overloaded"}, status=500)

    async def scenario() -> Any:
        async with serve(handler) as base:
            return await judge_all(_runner(base, [], retries=2), [(CASE, RECORD)])

    [judgment] = asyncio.run(scenario())
    assert judgment.status == "ungraded" and judgment.score is None
    assert "http_5xx" in judgment.reason and "after 3 attempts" in judgment.reason
    assert "model overloaded" in judgment.reason


def test_a_judge_that_never_answers_times_out_ungraded(serve: Serve) -> None:
    async def handler(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return _completion(json.dumps(GOOD))

    async def scenario() -> Any:
        async with serve(handler) as base:
            runner = _runner(base, [], retries=0, timeout_s=0.2)
            return await judge_all(runner, [(CASE, RECORD)])

    [judgment] = asyncio.run(scenario())
    assert judgment.status == "ungraded"
    assert "timeout" in judgment.reason


def test_refusal_and_malformed_replies_are_ungraded(serve: Serve) -> None:
    replies = iter(
        [
            web.json_response(
                {"choices": [{"message": {"content": None, "refusal": "I cannot grade this"}}]}
            ),
            _completion('{"score": 5, "findings": [], "rationale": ""}'),
            web.json_response({"no": "choices"}),
        ]
    )

    async def handler(request: web.Request) -> web.Response:
        return next(replies)

    async def scenario() -> Any:
        async with serve(handler) as base:
            runner = _runner(base, [], concurrency=1, retries=0)
            return await judge_all(runner, [(CASE, RECORD)] * 3)

    judged = asyncio.run(scenario())
    assert [j.status for j in judged] == ["ungraded"] * 3
    assert "refusal" in judged[0].reason
    assert "off_scale" in judged[1].reason
    assert "parse_error" in judged[2].reason


def test_errors_and_abstentions_need_no_call(serve: Serve) -> None:
    calls: list[int] = []

    async def handler(request: web.Request) -> web.Response:
        calls.append(1)
        return _completion(json.dumps(GOOD))

    error = Record(case_id="E1", outcome=Error(error_class="timeout", message="slow"))
    abstain = Record(case_id="E1", outcome=Abstain())
    empty = Record(case_id="E1", outcome=Answer(fact="return_30"))

    async def scenario() -> Any:
        async with serve(handler) as base:
            return await judge_all(
                _runner(base, []), [(CASE, error), (CASE, abstain), (CASE, empty)]
            )

    judged = asyncio.run(scenario())
    assert [j.status for j in judged] == ["error", "failed", "ungraded"]
    assert "no text" in judged[2].reason
    assert calls == []


def test_the_judge_key_is_sent_and_never_kept(
    serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-judge-SECRET-5e1f"
    monkeypatch.setenv("JUDGE_TEST_KEY", key)
    seen: list[str] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Authorization", ""))
        return web.json_response({"error": f"echo {request.headers['Authorization']}"}, status=500)

    async def scenario() -> Any:
        async with serve(handler) as base:
            runner = _runner(base, [], retries=0, api_key_env="JUDGE_TEST_KEY")
            return await judge_all(runner, [(CASE, RECORD)])

    [judgment] = asyncio.run(scenario())
    assert seen == [f"Bearer {key}"]
    assert judgment.status == "ungraded"
    assert key not in judgment.reason and "<redacted>" in judgment.reason


def test_a_missing_judge_key_stops_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_TEST_KEY", raising=False)
    runner = _runner("http://127.0.0.1:9", [], api_key_env="JUDGE_TEST_KEY")
    with pytest.raises(AssayConfigError, match="JUDGE_TEST_KEY is not set"):
        asyncio.run(judge_all(runner, [(CASE, RECORD)]))
