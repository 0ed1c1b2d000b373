"""Generation by a real model: any OpenAI-compatible chat endpoint, through the ``openai``
target's client, in place of the deterministic reader.

The model sees the context sections (with their ids), the question and the fact keys the
context supports, and replies with the structured outcome the ``openai`` target asks for.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.trace import Tracer

from assay.demo._config import DemoConfig
from assay.demo._generation import SYSTEM_PROMPTS, Generated, record_chat
from assay.demo._policy import Section
from assay.outcomes import Answer, Usage, span_names
from assay.targets.openai import (
    DEFAULT_SYSTEM_PROMPT,
    RESPONSE_FORMAT,
    OpenAITarget,
    parse_completion,
)

FACT_RULE = (
    "Use one of the fact keys listed when a section supports it; cite the section ids you "
    "used. Abstain when the sections do not answer the question."
)


def system_prompt(config: DemoConfig) -> str:
    """The demo prompt version's instructions plus the structured-reply contract."""
    return f"{SYSTEM_PROMPTS[config.prompt_version]} {DEFAULT_SYSTEM_PROMPT} {FACT_RULE}"


def user_message(question: str, context: list[Section]) -> str:
    """The context sections with their ids, the fact keys they support, and the question."""
    sections = "\n".join(f"[{s.id}] {s.title}: {s.text}" for s in context) or "(none)"
    facts = ", ".join(sorted({s.fact for s in context if s.fact})) or "(none)"
    return f"Policy sections:\n{sections}\n\nFact keys: {facts}\n\nQuestion: {question}"


def _request(
    llm: OpenAITarget, config: DemoConfig, question: str, context: list[Section]
) -> dict[str, Any]:
    settings = llm.settings
    options = {
        "temperature": settings.temperature,
        "seed": settings.seed,
        "max_tokens": settings.max_tokens,
    }
    return {
        "model": settings.model,
        "response_format": RESPONSE_FORMAT,
        **{k: v for k, v in options.items() if v is not None},
        "messages": [
            {"role": "system", "content": system_prompt(config)},
            {"role": "user", "content": user_message(question, context)},
        ],
    }


def _finish_reason(body: Any) -> str:
    try:
        return str(body["choices"][0].get("finish_reason") or "unknown")
    except (KeyError, IndexError, TypeError, AttributeError):
        return "unknown"


async def generate_remote(
    question: str,
    context: list[Section],
    config: DemoConfig,
    llm: OpenAITarget,
    tracer: Tracer,
    traceparent: str | None = None,
) -> Generated:
    """Ask the model; one ``chat`` span with the model, usage and finish reason."""
    with tracer.start_as_current_span(f"chat {llm.settings.model}") as span:
        request = _request(llm, config, question, context)
        extra = {"traceparent": traceparent} if traceparent else None
        got = await llm.client.post_json(llm.url, request, extra)
        if isinstance(got, tuple):
            body, raw = got
            reply = parse_completion(body, raw)
            finish = _finish_reason(body)
        else:
            reply, finish = got, "error"
        usage = reply.usage or Usage()
        record_chat(span, config.model_copy(update={"model": llm.settings.model}), usage, finish)
        span.set_attribute(span_names.GEN_AI_PROVIDER_NAME, "openai-compatible")
        span.set_attribute(span_names.ANSWER_KIND, reply.outcome.kind)
        span.set_attribute(span_names.ANSWER_SOURCE, "model")
        if isinstance(reply.outcome, Answer):
            span.set_attribute(span_names.ANSWER_FACT, reply.outcome.fact or "")
            span.set_attribute(span_names.ANSWER_CITATIONS, list(reply.outcome.citations))
        return Generated(reply.outcome, usage)
