"""A scripted OpenAI-compatible chat model speaking the tools API, for agent tests: a server
on 127.0.0.1 (in a thread, so that a CLI subprocess reaches it too) whose every reply a
test's script writes from the request body, plus helpers that write those replies.

    def script(body):
        if not tool_results(body):
            return calls(tool_call("add", {"a": 1, "b": 2}))
        return said("3")

    with tool_model(script) as model:
        target = build_target({"type": "agent", "model": {"base_url": model.base_url, ...}})

A script may return a ``web.Response`` (e.g. ``failing(500)``) to fail the call. The same
scripts drive a ``{function: module:fn}`` model: ``as_function(script)`` is the
``(messages, tools) -> assistant message`` callable for it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from tests.loopback import threaded_server

Script = Callable[[dict[str, Any]], "dict[str, Any] | web.Response"]
_IDS = itertools.count(1)


def tool_call(name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    """One tool call as the API writes it; ``arguments`` a value sent as JSON text, or a
    string sent as it is (malformed JSON included)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": call_id or f"call_{next(_IDS)}",
        "type": "function",
        "function": {"name": name, "arguments": text},
    }


def calls(*tool_calls: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """An assistant message asking for ``tool_calls`` (several: parallel calls)."""
    return {"role": "assistant", "content": text, "tool_calls": list(tool_calls)}


def said(text: str) -> dict[str, Any]:
    """An assistant message without tool calls: the final answer."""
    return {"role": "assistant", "content": text}


def failing(status: int = 500) -> web.Response:
    """An HTTP failure of the model call."""
    return web.json_response({"error": {"message": "model unavailable"}}, status=status)


def tool_results(body_or_messages: Any) -> list[dict[str, Any]]:
    """The tool messages of a request (a body or its messages), in order."""
    messages = (
        body_or_messages["messages"] if isinstance(body_or_messages, dict) else body_or_messages
    )
    return [m for m in messages if m.get("role") == "tool"]


def question(body_or_messages: Any) -> str:
    """The last user message's text."""
    messages = (
        body_or_messages["messages"] if isinstance(body_or_messages, dict) else body_or_messages
    )
    return str([m for m in messages if m.get("role") == "user"][-1]["content"])


def completion(message: dict[str, Any], usage: tuple[int, int] = (10, 5)) -> dict[str, Any]:
    """A chat-completions reply carrying ``message``."""
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "model": "tool-mock-1",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
    }


@dataclass
class ToolModel:
    """A running scripted model: its base URL (``…/v1``) and every request body it got."""

    base_url: str
    bodies: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def tool_model(script: Script) -> Iterator[ToolModel]:
    """A scripted model server answering ``POST /v1/chat/completions`` until the block ends."""
    found: list[dict[str, Any]] = []

    async def handler(request: web.Request) -> web.Response:
        body = await request.json()
        found.append(body)
        reply = script(body)
        if isinstance(reply, web.Response):
            return reply
        return web.json_response(completion(reply))

    with threaded_server({"/v1/chat/completions": handler}) as url:
        yield ToolModel(f"{url}/v1", found)


def as_function(script: Script) -> Callable[[list[dict[str, Any]], list[Any]], dict[str, Any]]:
    """``script`` as a ``{function: module:fn}`` model (it sees ``{"messages", "tools"}``);
    a failing reply raises."""

    def model(messages: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any]:
        reply = script({"messages": messages, "tools": tools})
        if isinstance(reply, web.Response):
            raise ConnectionError(f"the scripted model failed with HTTP {reply.status}")
        return reply

    return model
