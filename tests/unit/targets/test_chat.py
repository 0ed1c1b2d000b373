"""Chat completions without I/O: request bodies per output mode and response format, and
replies read as outcomes (structured JSON, JSON inside text, free text, abstention)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.outcomes import Abstain, Answer, Error
from assay.targets.chat import (
    OUTCOME_SCHEMA,
    AbstainRule,
    json_in_text,
    parse_completion,
    request_body,
)

MESSAGES = [{"role": "user", "content": "How long?"}]


def _body(content: Any, finish: str = "stop", usage: Any = None) -> dict[str, Any]:
    found: dict[str, Any] = {
        "model": "served-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
    }
    if usage is not None:
        found["usage"] = usage
    return found


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("json_schema", {"type": "json_schema"}),
        ("json_object", {"type": "json_object", "schema": OUTCOME_SCHEMA}),
        ("none", None),
    ],
)
def test_each_response_format_asks_as_documented(mode: Any, expected: Any) -> None:
    body = request_body("m", MESSAGES, response_format=mode, temperature=0, max_tokens=64)
    assert body["messages"] == MESSAGES and body["temperature"] == 0 and body["max_tokens"] == 64
    if expected is None:
        assert "response_format" not in body
    else:
        assert {k: body["response_format"][k] for k in expected} == expected


def test_text_output_sends_no_response_format() -> None:
    assert "response_format" not in request_body("m", MESSAGES, output="text")


def test_structured_reply_becomes_the_outcome_with_usage() -> None:
    content = json.dumps({"kind": "answer", "fact": "f", "text": "t", "citations": ["s"]})
    reply = parse_completion(_body(content, usage={"prompt_tokens": 9, "completion_tokens": 3}), "")
    assert reply.outcome == Answer(fact="f", text="t", citations=("s",))
    assert reply.usage is not None and (reply.usage.input_tokens, reply.usage.output_tokens) == (
        9,
        3,
    )


@pytest.mark.parametrize(
    "content",
    [
        'Sure! Here it is:\n```json\n{"kind": "abstain", "fact": null, "text": null}\n```',
        'The answer: {"kind": "abstain"} as asked.',
        '{"kind": "abstain"}',
    ],
)
def test_json_is_read_out_of_plain_text_with_response_format_none(content: str) -> None:
    reply = parse_completion(_body(content), "", response_format="none")
    assert isinstance(reply.outcome, Abstain)


def test_plain_text_is_a_parse_error_when_json_was_asked_for() -> None:
    reply = parse_completion(_body("30 days"), "", response_format="json_object")
    assert isinstance(reply.outcome, Error)
    assert reply.outcome.error_class == "parse_error"
    assert reply.outcome.raw == "30 days"


def test_a_reply_cut_at_max_tokens_says_so() -> None:
    reply = parse_completion(_body('{"kind": "ans', finish="length"), "")
    assert isinstance(reply.outcome, Error)
    assert "finish_reason length" in (reply.outcome.message or "")
    assert reply.outcome.raw == '{"kind": "ans'


def test_no_json_object_in_text_is_a_parse_error_keeping_the_text() -> None:
    with pytest.raises(ValueError, match="no JSON object"):
        json_in_text("no braces here { at all")


def test_a_long_raw_reply_is_truncated_visibly() -> None:
    reply = parse_completion(_body("x" * 5000), "", response_format="json_schema")
    assert isinstance(reply.outcome, Error)
    assert (reply.outcome.raw or "").endswith("… [truncated: 5000 characters in all]")


def test_free_text_is_an_answer() -> None:
    reply = parse_completion(_body("  Thirty days.  "), "", output="text")
    assert reply.outcome == Answer(text="Thirty days.")


@pytest.mark.parametrize(
    "text",
    [
        "Unanswerable.",
        "I don't know.",
        "The context does not say.",
        "It is not mentioned in the text",
    ],
)
def test_free_text_matching_the_default_rule_is_an_abstention(text: str) -> None:
    reply = parse_completion(_body(text), "", output="text")
    assert isinstance(reply.outcome, Abstain)
    assert (reply.outcome.reason or "").startswith("the reply matched the abstain rule /")
    assert reply.outcome.text == text


def test_the_abstain_rule_is_configurable() -> None:
    rule = AbstainRule(("^NONE$",))
    assert isinstance(parse_completion(_body("none"), "", "text", abstain=rule).outcome, Abstain)
    got = parse_completion(_body("I don't know"), "", "text", abstain=rule).outcome
    assert got == Answer(text="I don't know")


def test_an_empty_text_reply_is_a_parse_error() -> None:
    reply = parse_completion(_body("   "), "", output="text")
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "parse_error"


def test_a_body_without_choices_is_a_parse_error_with_the_raw_body() -> None:
    reply = parse_completion({"error": "x"}, '{"error": "x"}')
    assert isinstance(reply.outcome, Error)
    assert reply.outcome.error_class == "parse_error" and reply.outcome.raw == '{"error": "x"}'


def test_a_refusal_is_its_own_error_class() -> None:
    body = _body(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    reply = parse_completion(body, "")
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "refusal"
