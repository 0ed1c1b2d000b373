"""Generation by an OpenAI-compatible model (a loopback stand-in here) instead of the reader."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aiohttp import web

from assay.demo import DemoSettings, DemoTarget
from assay.load import load_dataset
from assay.outcomes import Answer, Span
from assay.targets import TargetContext, build_target
from assay.targets.openai import OpenAISettings
from assay.tracing import start_tracing, traceparent

DATASET = Path(__file__).resolve().parents[3] / "examples" / "demo" / "policy-demo.jsonl"
CASES = {c.id: c for c in load_dataset(DATASET)}


def reply_for(body: dict[str, Any]) -> dict[str, Any]:
    """A model that answers with the first fact key offered, citing the first section."""
    content = body["messages"][-1]["content"]
    facts = re.search(r"Fact keys: (.*)", content)
    first = (facts.group(1).split(", ")[0]) if facts else "(none)"
    sections = re.findall(r"^\[([^\]]+)\]", content, re.MULTILINE)
    if first == "(none)":
        outcome = {
            "kind": "abstain",
            "fact": None,
            "text": "The policy does not say.",
            "citations": [],
        }
    else:
        outcome = {"kind": "answer", "fact": first, "text": "...", "citations": sections[:1]}
    return {
        "choices": [{"message": {"content": json.dumps(outcome)}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 9},
    }


async def with_model(
    case_id: str, config: str = "v3"
) -> tuple[Any, list[dict[str, Any]], list[Span], str | None]:
    seen: list[dict[str, Any]] = []
    headers: list[str | None] = []

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        headers.append(request.headers.get("traceparent"))
        return web.json_response(reply_for(body))

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    class Sink:
        def __init__(self) -> None:
            self.spans: list[Span] = []

        def add_spans(self, run_id: str, spans: Sequence[Span]) -> None:
            self.spans.extend(spans)

    sink = Sink()
    session = start_tracing(sink, "run-m")
    settings = OpenAISettings(base_url=f"http://127.0.0.1:{port}/v1", model="mock-model")
    target = DemoTarget(config, settings)
    await target.start()
    try:
        with session.tracer.start_as_current_span(
            "assay.request", attributes={"assay.case.id": case_id}
        ):
            ctx = TargetContext(run_id="run-m", tracer=session.tracer, traceparent=traceparent())
            reply = await target.run(CASES[case_id], ctx)
    finally:
        await target.aclose()
        await runner.cleanup()
    session.close()
    return reply, seen, sink.spans, headers[0] if headers else None


def test_the_model_sees_the_context_and_its_answer_is_the_outcome() -> None:
    reply, seen, spans, forwarded = asyncio.run(with_model("E2"))
    assert isinstance(reply.outcome, Answer)
    assert reply.outcome.fact == "custom_excluded"
    assert reply.usage is not None and reply.usage.input_tokens == 120
    body = seen[0]
    assert body["model"] == "mock-model"
    assert body["response_format"]["type"] == "json_schema"
    assert "[acme/custom-exception]" in body["messages"][-1]["content"]
    assert "Exceptions and newer sections take precedence" in body["messages"][0]["content"]
    chat = next(s for s in spans if s.name == "chat mock-model")
    assert chat.attributes["gen_ai.request.model"] == "mock-model"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert chat.attributes["gen_ai.usage.output_tokens"] == 9
    request = next(s for s in spans if s.name == "assay.request")
    assert forwarded is not None and request.trace_id in forwarded


def test_a_retrieval_fault_still_starves_a_real_model() -> None:
    reply, seen, _, _ = asyncio.run(with_model("E2", "e2-retrieval"))
    assert "custom-exception" not in seen[0]["messages"][-1]["content"]
    assert "custom_excluded" not in seen[0]["messages"][-1]["content"]
    assert isinstance(reply.outcome, Answer) and reply.outcome.fact != "custom_excluded"


def test_a_suite_can_name_the_model() -> None:
    target = build_target(
        {
            "type": "demo",
            "config": "v3",
            "openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m"},
        }
    )
    assert isinstance(target, DemoTarget)
    assert target.config()["openai"]["model"] == "m"
    assert DemoSettings().openai is None
