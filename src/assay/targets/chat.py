"""Chat completions without I/O: building the request body of an OpenAI-compatible
``/chat/completions`` call and reading its reply into an outcome.

Two output modes:

- ``structured``: the model replies with the outcome as JSON (``kind`` answer|abstain,
  ``fact``, ``text``, ``citations``). ``response_format`` says how it is asked for:
  ``json_schema`` (a strict JSON schema, as OpenAI takes it), ``json_object`` (JSON mode,
  with the schema under ``schema``, as llama.cpp and vLLM take it; the schema is also put
  in the system prompt) or ``none`` (no ``response_format``: the schema is put in the
  system prompt and the JSON object is read out of the plain text, fenced or not).
- ``text``: the reply is a free-text answer, an ``Answer`` with ``text``; it is an
  ``Abstain`` when it matches the abstain rule (see ``AbstainRule``).

A reply that cannot be read is an ``Error`` of class ``parse_error`` that keeps the raw
text (truncated visibly past ``RAW_LIMIT`` characters).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator

from assay.outcomes import Abstain, Answer, Outcome, Usage
from assay.targets._base import Reply
from assay.targets._replies import error_reply, outcome_from_mapping, usage_from

ResponseFormat = Literal["json_schema", "json_object", "none"]
OutputMode = Literal["structured", "text"]
Messages = Sequence[Mapping[str, str]]

OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "fact", "text", "citations"],
    "properties": {
        "kind": {"type": "string", "enum": ["answer", "abstain"]},
        "fact": {"type": ["string", "null"]},
        "text": {"type": ["string", "null"]},
        "citations": {"type": "array", "items": {"type": "string"}},
    },
}
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "outcome", "strict": True, "schema": OUTCOME_SCHEMA},
}
SCHEMA_INSTRUCTION = (
    "Reply with one JSON object and nothing else, matching this JSON schema: "
    + json.dumps(OUTCOME_SCHEMA, separators=(",", ":"))
)

# Phrases that make a free-text reply an abstention by default: matched as regular
# expressions, ignoring case, anywhere in the reply.
DEFAULT_ABSTAIN_PATTERNS: tuple[str, ...] = (
    r"\bunanswerable\b",
    r"\bi (?:do not|don't|cannot|can't) (?:know|answer|say|tell)\b",
    r"\b(?:cannot|can't|can ?not) be answered\b",
    r"\bnot (?:mentioned|stated|given|provided|specified|found) in the (?:context|text|passage)",
    r"\b(?:the )?(?:context|text|passage) does(?: not|n't) (?:say|mention|state|contain)\b",
    r"\bno answer\b",
)


def response_format_field(mode: ResponseFormat) -> dict[str, Any] | None:
    """The ``response_format`` value for a structured request in ``mode`` (None: omitted)."""
    if mode == "json_schema":
        return RESPONSE_FORMAT
    if mode == "json_object":
        return {"type": "json_object", "schema": OUTCOME_SCHEMA}
    return None


def needs_schema_instruction(output: OutputMode, response_format: ResponseFormat) -> bool:
    """True when the model learns the outcome schema only from the prompt."""
    return output == "structured" and response_format != "json_schema"


def request_body(
    model: str,
    messages: Messages,
    *,
    output: OutputMode = "structured",
    response_format: ResponseFormat = "json_schema",
    temperature: float | None = None,
    seed: int | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The JSON body of a chat-completions request."""
    body: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
    if output == "structured":
        field = response_format_field(response_format)
        if field is not None:
            body["response_format"] = field
    if temperature is not None:
        body["temperature"] = temperature
    if seed is not None:
        body["seed"] = seed
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


@dataclass(frozen=True)
class Completion:
    """What a chat-completions reply says, before it is read as an outcome (``tool_calls``:
    the message's tool calls as the API gave them, for an agent loop)."""

    content: str | None
    refusal: str | None = None
    finish_reason: str | None = None
    response_model: str | None = None
    usage: Usage | None = None
    tool_calls: tuple[Any, ...] = ()


def read_completion(body: Any) -> Completion:
    """The first choice's message, finish reason, model and usage of a reply body.

    Raises ``ValueError`` when the body has no ``choices[0].message``.
    """
    try:
        choice = body["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError
    except (KeyError, IndexError, TypeError):
        raise ValueError("no choices[0].message in the reply") from None
    usage = None
    usage_data = body.get("usage") if isinstance(body, dict) else None
    if isinstance(usage_data, dict):
        usage = usage_from(usage_data.get("prompt_tokens"), usage_data.get("completion_tokens"))
    content = message.get("content")
    refusal = message.get("refusal")
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    model = body.get("model")
    calls = message.get("tool_calls")
    return Completion(
        content=content if isinstance(content, str) else None,
        refusal=str(refusal) if refusal else None,
        finish_reason=finish if isinstance(finish, str) else None,
        response_model=model if isinstance(model, str) else None,
        usage=usage,
        tool_calls=tuple(calls) if isinstance(calls, list) else (),
    )


_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL | re.IGNORECASE)


def json_in_text(text: str) -> Any:
    """The JSON object a plain-text reply carries: the whole text, a fenced block, or the
    first ``{…}`` that parses. Raises ``ValueError`` when there is none."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    fenced = _FENCED.search(stripped)
    if fenced:
        try:
            return json.loads(fenced.group(1))
        except json.JSONDecodeError:
            pass
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"\{", stripped)):
        try:
            value, _end = decoder.raw_decode(stripped, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ValueError("no JSON object in the reply")


def structured_outcome(content: str, response_format: ResponseFormat) -> Outcome:
    """The outcome a structured reply carries. Raises ``ValueError`` when it is not one."""
    if response_format == "none":
        data = json_in_text(content)
    else:
        try:
            data = json.loads(content)
        except json.JSONDecodeError as err:
            raise ValueError(f"the reply is not JSON: {err.msg}") from None
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    if data.get("kind") == "abstain":
        text = data.get("text")
        return outcome_from_mapping({"kind": "abstain", "text": text})
    kept = {k: v for k, v in data.items() if k in ("kind", "fact", "text", "citations")}
    kept["citations"] = kept.get("citations") or []
    return outcome_from_mapping(kept)


@dataclass(frozen=True)
class AbstainRule:
    """When a free-text reply is an abstention: it matches one of ``patterns`` (regular
    expressions searched anywhere in the reply, ignoring case)."""

    patterns: tuple[str, ...] = DEFAULT_ABSTAIN_PATTERNS

    def matched(self, text: str) -> str | None:
        """The first pattern found in ``text``, or None."""
        for pattern in self.patterns:
            if re.search(pattern, text, re.IGNORECASE):
                return pattern
        return None


def _compiled(patterns: tuple[str, ...] | None) -> tuple[str, ...] | None:
    for pattern in patterns or ():
        try:
            re.compile(pattern)
        except re.error as err:
            raise ValueError(f"not a regular expression: {pattern!r} ({err})") from None
    return patterns


AbstainPatterns = Annotated[tuple[str, ...] | None, AfterValidator(_compiled)]
"""A setting's abstain patterns: regular expressions, each checked to compile (None:
the default ``AbstainRule``)."""


def text_outcome(content: str, rule: AbstainRule) -> Outcome:
    """A free-text reply as an outcome: an abstention when it matches ``rule``, else an
    answer with its text. Raises ``ValueError`` for an empty reply."""
    text = content.strip()
    if not text:
        raise ValueError("the reply is empty")
    pattern = rule.matched(text)
    if pattern is not None:
        return Abstain(reason=f"the reply matched the abstain rule /{pattern}/", text=text)
    return Answer(text=text)


def parse_completion(
    body: Any,
    raw: str,
    output: OutputMode = "structured",
    response_format: ResponseFormat = "json_schema",
    abstain: AbstainRule | None = None,
) -> Reply:
    """The outcome and usage of a chat-completions reply; a reply that cannot be read is a
    ``parse_error`` keeping the raw text (a refusal is a ``refusal`` error)."""
    try:
        completion = read_completion(body)
    except ValueError as err:
        return error_reply("parse_error", str(err), raw)
    return outcome_reply(completion, output, response_format, abstain)


def outcome_reply(
    completion: Completion,
    output: OutputMode = "structured",
    response_format: ResponseFormat = "json_schema",
    abstain: AbstainRule | None = None,
) -> Reply:
    """``completion`` read as an outcome, with its usage."""
    usage = completion.usage
    if completion.refusal:
        return Reply(error_reply("refusal", completion.refusal, completion.content).outcome, usage)
    content = completion.content
    if content is None:
        return Reply(error_reply("parse_error", "the message has no content").outcome, usage)
    try:
        if output == "text":
            outcome = text_outcome(content, abstain or AbstainRule())
        else:
            outcome = structured_outcome(content, response_format)
    except ValueError as err:
        message = str(err)
        if completion.finish_reason == "length":
            message += " (the reply was cut at max_tokens: finish_reason length)"
        return Reply(error_reply("parse_error", message, content).outcome, usage)
    return Reply(outcome, usage)
