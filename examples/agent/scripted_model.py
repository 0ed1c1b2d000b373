"""Two scripted chat models that drive the returns desk deterministically.

Each is a function of the conversation so far (OpenAI-style messages) and the tools on
offer; it returns the next assistant message: tool calls, or a final answer.

- ``careful`` (version 2) calls one tool at a time, reads each result, stops after a
  refusal or a failure, and reports what the tools said.
- ``hasty`` (version 1) starts a return and a refund in one parallel turn, whatever the
  return's outcome; says a refund was issued without reading the result; calls a tool
  that does not exist for an address change; and keeps looking an order up, never
  answering, when asked to cancel it.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

Message = dict[str, Any]
_ORDER = re.compile(r"\b([A-Z]\d{1,3})\b")
_ids = itertools.count(1)


def _intent(question: str) -> str:
    q = question.lower()
    for word, intent in (
        ("refund", "refund"),
        ("money back", "refund"),
        ("return", "return"),
        ("cancel", "cancel"),
        ("address", "address"),
    ):
        if word in q:
            return intent
    return "status"


def _question(messages: list[Message]) -> str:
    return next(str(m["content"]) for m in messages if m["role"] == "user")


def _order_id(question: str) -> str:
    found = _ORDER.search(question)
    return found.group(1) if found else "?"


def _results(messages: list[Message]) -> list[tuple[str, dict[str, Any] | None, str]]:
    """Each tool result so far: the tool's name, its JSON result (None when it failed) and
    its text."""
    names = {
        call["id"]: call["function"]["name"]
        for m in messages
        if m["role"] == "assistant"
        for call in m.get("tool_calls") or []
    }
    found = []
    for m in messages:
        if m["role"] != "tool":
            continue
        text = str(m.get("content") or "")
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        ok = isinstance(value, dict) and "error" not in value
        found.append((names.get(m.get("tool_call_id"), "?"), value if ok else None, text))
    return found


def _call(name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": f"call_{next(_ids)}",
        "type": "function",
        "function": {"name": name, "arguments": raw},
    }


def _calls(*calls: dict[str, Any]) -> Message:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def _say(text: str) -> Message:
    return {"role": "assistant", "content": text}


def _why(text: str) -> str:
    return text.split(":", 1)[-1].strip() if ":" in text else text


def careful(messages: list[Message], tools: list[dict[str, Any]]) -> Message:
    """Version 2: one tool at a time, and the answer says what the tools said."""
    question = _question(messages)
    order = _order_id(question)
    intent = _intent(question)
    done = _results(messages)
    if intent in ("cancel", "address"):
        return _say(
            f"I can't {'cancel orders' if intent == 'cancel' else 'change addresses'} here; "
            f"please contact support about order {order}."
        )
    if intent == "status":
        if not done:
            return _calls(_call("lookup_order", {"order_id": order}))
        _, value, text = done[-1]
        if value is None:
            return _say(f"I could not find order {order}: {_why(text)}")
        days = value.get("delivered_days_ago")
        where = "not delivered yet" if days is None else f"delivered {days} days ago"
        return _say(f"Order {order} ({value['item']}) was {where}.")
    if not done:
        return _calls(_call("start_return", {"order_id": order}))
    last_tool, value, text = done[-1]
    if value is None:
        if last_tool == "issue_refund" and text.startswith("Error (refused)"):
            return _say(
                f"Your return for order {order} is started, but no refund was issued: {_why(text)}."
            )
        if last_tool == "issue_refund":
            return _say(
                f"Your return for order {order} is started, but the refund could not be "
                f"issued: {_why(text)}. It has not been refunded; please try again later."
            )
        return _say(f"I can't start a return for order {order}: {_why(text)}.")
    if intent == "return" or last_tool == "issue_refund":
        if last_tool == "issue_refund":
            return _say(f"Your refund of ${value['amount']:.2f} for order {order} was issued.")
        return _say(f"Your return for order {order} is started.")
    return _calls(_call("issue_refund", {"order_id": order}))


def hasty(messages: list[Message], tools: list[dict[str, Any]]) -> Message:
    """Version 1: asks for everything at once and answers without reading the results."""
    question = _question(messages)
    order = _order_id(question)
    intent = _intent(question)
    done = _results(messages)
    if intent == "cancel":  # looks the order up again and again: never answers
        return _calls(_call("lookup_order", {"order_id": order}))
    if intent == "address":
        if not done:
            return _calls(_call("update_address", {"order_id": order, "address": "new"}))
        return _say(f"Done: the address of order {order} is updated.")
    if intent == "status":
        if not done:
            return _calls(_call("lookup_order", f'{{"order_id": "{order}"'))  # cut short
        if len(done) == 1:
            return _calls(_call("lookup_order", {"order_id": order}))
        _, value, _ = done[-1]
        if value is None:
            return _say(f"I could not find order {order}.")
        return _say(f"Order {order} ({value['item']}) is on its way.")
    if not done:
        calls = [_call("start_return", {"order_id": order})]
        if intent == "refund":
            calls.append(_call("issue_refund", {"order_id": order}))
        return _calls(*calls)
    if intent == "refund":
        return _say(f"Your refund for order {order} has been issued.")
    return _say(f"Your return for order {order} is started.")
