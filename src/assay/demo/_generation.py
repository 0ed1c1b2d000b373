"""The generation stage: a deterministic reader standing in for a model.

The reader answers with the fact of the context section that answers the question (when
the policy's precedence is honoured, a section overridden by another matching section
is passed over); with nothing in the context it abstains, unless its prompt lets it fall
back on what it "remembers", which is how the ``v1`` prompt invents a shipping fee.
"""

from __future__ import annotations

from dataclasses import dataclass

from opentelemetry.trace import Span, Tracer

from assay.demo._bm25 import tokenize
from assay.demo._config import DemoConfig
from assay.demo._policy import Section
from assay.outcomes import Abstain, Answer, Outcome, Usage, span_names

SYSTEM_PROMPTS = {
    "p1-helpful": "Answer the customer's question helpfully.",
    "p2-context-only": "Answer only from the policy sections given; otherwise say you "
    "cannot tell. Exceptions and newer sections take precedence.",
    "p2-first-match": "Answer only from the policy sections given; otherwise say you cannot tell.",
}
# What the model "remembers" from elsewhere: plausible, and wrong for this retailer.
MEMORY = {"shipping": "shipping_fee_10", "ship": "shipping_fee_10"}


@dataclass(frozen=True)
class Generated:
    """The stage's result: the outcome and the tokens it used."""

    outcome: Outcome
    usage: Usage


def choose(question: str, context: list[Section], honour_precedence: bool) -> Section | None:
    """The context section the reader answers from, or None when none answers."""
    matches = [s for s in context if s.fact is not None and s.answers(question)]
    if honour_precedence:
        overridden = {o for s in matches for o in s.overrides}
        matches = [s for s in matches if s.id not in overridden]
    return matches[0] if matches else None


def _remembered(question: str) -> str | None:
    words = tokenize(question)
    return next((MEMORY[w] for w in words if w in MEMORY), None)


def record_chat(span: Span, config: DemoConfig, usage: Usage, finish: str) -> None:
    span.set_attributes(
        {
            span_names.STAGE: "generation",
            span_names.GEN_AI_OPERATION_NAME: "chat",
            span_names.GEN_AI_PROVIDER_NAME: "assay.demo",
            span_names.GEN_AI_REQUEST_MODEL: config.model,
            span_names.GEN_AI_RESPONSE_MODEL: config.model,
            span_names.GEN_AI_USAGE_INPUT_TOKENS: usage.input_tokens or 0,
            span_names.GEN_AI_USAGE_OUTPUT_TOKENS: usage.output_tokens or 0,
            span_names.GEN_AI_RESPONSE_FINISH_REASONS: [finish],
            span_names.PROMPT_VERSION: config.prompt_version,
        }
    )


def _answer_attributes(span: Span, outcome: Outcome, source: str) -> None:
    span.set_attribute(span_names.ANSWER_KIND, outcome.kind)
    span.set_attribute(span_names.ANSWER_SOURCE, source)
    if isinstance(outcome, Answer):
        span.set_attribute(span_names.ANSWER_FACT, outcome.fact or "")
        span.set_attribute(span_names.ANSWER_CITATIONS, list(outcome.citations))


def generate(
    question: str, context: list[Section], config: DemoConfig, tracer: Tracer
) -> Generated:
    """Answer from the context, or abstain; one ``chat`` span with GenAI attributes."""
    with tracer.start_as_current_span(f"chat {config.model}") as span:
        prompt = " ".join([SYSTEM_PROMPTS[config.prompt_version], *(s.text for s in context)])
        chosen = choose(question, context, config.honour_precedence)
        outcome: Outcome
        if chosen is not None and chosen.fact is not None:
            outcome = Answer(fact=chosen.fact, text=chosen.text, citations=(chosen.id,))
            source = "context"
        elif config.answer_from_memory and (fact := _remembered(question)):
            outcome = Answer(fact=fact, text="Return shipping costs 10 dollars.")
            source = "memory"
        else:
            reason = "the policy sections retrieved do not answer this question"
            outcome = Abstain(reason=reason, text=f"I can't tell: {reason}.")
            source = "none"
        reply = outcome.text or ""
        usage = Usage(
            input_tokens=len(f"{prompt} {question}".split()), output_tokens=len(reply.split())
        )
        record_chat(span, config, usage, "stop")
        _answer_attributes(span, outcome, source)
        return Generated(outcome, usage)
