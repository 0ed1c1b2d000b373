"""The model that drives an agent loop: an OpenAI-compatible chat endpoint called with the
tools API, or a Python callable taking ``(messages, tools)`` and returning an assistant
message (a scripted, deterministic model for tests and examples).

Either gives back a ``Turn`` (what the model said and the tool calls it asked for) or, when
the call failed, an ``Error`` reply classified as the ``openai`` target classifies it.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from assay.outcomes import ToolCall, Usage
from assay.targets import Reply, error_reply, exception_reply, scrub
from assay.targets.chat import request_body
from assay.targets.function import ThreadRaised, in_daemon_thread
from assay.targets.openai import ChatEndpoint


def to_json(value: Any) -> str:
    """The JSON text of ``value`` (non-ASCII kept as it is)."""
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Turn:
    """One model reply: the assistant ``message`` as the conversation keeps it, its text,
    the tool calls it asked for (in order), and what the API said about it."""

    message: dict[str, Any]
    text: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None = None
    usage: Usage | None = None
    response_model: str | None = None


def _arguments(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A tool call's arguments as an object, or None with the text sent when they are not
    a JSON object."""
    if isinstance(value, Mapping):
        return dict(value), None
    if not isinstance(value, str):
        return None, to_json(value) if value is not None else None
    try:
        parsed = json.loads(value) if value.strip() else {}
    except json.JSONDecodeError:
        return None, value
    return (parsed, None) if isinstance(parsed, dict) else (None, value)


def read_turn(message: Any, step: int, **said: Any) -> Turn:
    """The turn an assistant message makes (its tool calls given ids when it has none).

    Raises ``ValueError`` when ``message`` is not an assistant message.
    """
    if not isinstance(message, Mapping):
        raise ValueError(f"the model returned {type(message).__name__}, not a message object")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError("the message's content is not text")
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ValueError("the message's tool_calls is not a list")
    calls: list[ToolCall] = []
    sent: list[dict[str, Any]] = []
    for index, raw in enumerate(raw_calls):
        function = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(function, Mapping):
            raise ValueError(f"tool_calls[{index}] has no function")
        name = function.get("name")
        ident = raw.get("id") if isinstance(raw.get("id"), str) else f"call_{step}_{index + 1}"
        arguments, raw_arguments = _arguments(function.get("arguments"))
        calls.append(
            ToolCall(
                id=ident,
                name=name if isinstance(name, str) else "",
                arguments=arguments,
                raw_arguments=raw_arguments,
            )
        )
        text = function.get("arguments")
        sent.append(
            {
                "id": ident,
                "type": "function",
                "function": {
                    "name": name if isinstance(name, str) else "",
                    "arguments": text if isinstance(text, str) else to_json(text),
                },
            }
        )
    # A tool-calling turn without text is sent back with empty text: the API allows null
    # there, but some compatible servers (llama-cpp-python's) need text.
    kept: dict[str, Any] = {
        "role": "assistant",
        "content": "" if sent and content is None else content,
    }
    if sent:
        kept["tool_calls"] = sent
    return Turn(kept, content, tuple(calls), **said)


class ChatModel(Protocol):
    """What drives the loop: one model call per step."""

    name: str
    provider: str | None

    async def start(self) -> None: ...

    async def aclose(self) -> None: ...

    def secrets(self) -> tuple[str, ...]: ...

    def request(self, messages: Sequence[Mapping[str, Any]], tools: list[dict[str, Any]]) -> Any:
        """What the first call sends (shown by ``--dry-run``)."""
        ...

    async def turn(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: list[dict[str, Any]],
        step: int,
        traceparent: str | None,
    ) -> Turn | Reply:
        """The model's next turn, or the failure as an ``Error`` reply."""
        ...


@dataclass(frozen=True)
class Sampling:
    """How the model is asked to sample, sent with every call."""

    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    parallel_tool_calls: bool | None = None
    tool_choice: str | None = None


class EndpointModel:
    """An OpenAI-compatible ``/chat/completions`` endpoint, called with ``tools``; the HTTP
    session, API key and masking are the ``openai`` target's (``ChatEndpoint``)."""

    provider: str | None = "openai"

    def __init__(
        self, base_url: str, model: str, api_key_env: str | None, sampling: Sampling
    ) -> None:
        self.name = model
        self.endpoint = ChatEndpoint(base_url, api_key_env)
        self.sampling = sampling

    async def start(self) -> None:
        await self.endpoint.start()

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    def secrets(self) -> tuple[str, ...]:
        return self.endpoint.secrets

    def body(
        self, messages: Sequence[Mapping[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The request body of one call."""
        s = self.sampling
        body = request_body(
            self.name,
            [dict(m) for m in messages],
            output="text",
            temperature=s.temperature,
            seed=s.seed,
            max_tokens=s.max_tokens,
        )
        if tools:
            body["tools"] = tools
            if s.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = s.parallel_tool_calls
            if s.tool_choice is not None:
                body["tool_choice"] = s.tool_choice
        return body

    def request(self, messages: Sequence[Mapping[str, Any]], tools: list[dict[str, Any]]) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.endpoint.api_key_env is not None:
            headers["Authorization"] = f"Bearer <${self.endpoint.api_key_env}>"
        body = self.body(messages, tools)
        return {"method": "POST", "url": self.endpoint.url, "headers": headers, "body": body}

    async def turn(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: list[dict[str, Any]],
        step: int,
        traceparent: str | None,
    ) -> Turn | Reply:
        got = await self.endpoint.send(self.body(messages, tools), traceparent)
        if got.failure is not None:
            return got.failure
        completion = got.completion
        assert completion is not None
        message: dict[str, Any] = {"content": completion.content}
        if completion.tool_calls:
            message["tool_calls"] = list(completion.tool_calls)
        try:
            return read_turn(
                message,
                step,
                finish_reason=completion.finish_reason,
                usage=completion.usage,
                response_model=completion.response_model,
            )
        except ValueError as err:
            return scrub(error_reply("parse_error", str(err), got.raw), self.endpoint.secrets)


class FunctionModel:
    """A Python callable as the model: ``fn(messages, tools)`` returns the assistant message
    (``{"content": ..., "tool_calls": [...]}``), sync or async; a sync one runs in a worker
    thread. It gets copies: what it changes is not what the loop keeps."""

    provider: str | None = None

    def __init__(self, func: Callable[..., Any], spec: str) -> None:
        self.func = func
        self.name = spec
        self._is_async = inspect.iscoroutinefunction(func)

    async def start(self) -> None:
        """Nothing to open."""

    async def aclose(self) -> None:
        """Nothing to close."""

    def secrets(self) -> tuple[str, ...]:
        return ()

    def request(self, messages: Sequence[Mapping[str, Any]], tools: list[dict[str, Any]]) -> Any:
        return {"function": self.name, "messages": [dict(m) for m in messages], "tools": tools}

    async def turn(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: list[dict[str, Any]],
        step: int,
        traceparent: str | None,
    ) -> Turn | Reply:
        args = (copy.deepcopy(list(messages)), copy.deepcopy(tools))
        try:
            if self._is_async:
                value = await self.func(*args)
            else:
                value = await in_daemon_thread(self.func, *args)
                if inspect.isawaitable(value):
                    value = await value
        except ThreadRaised as raised:
            return exception_reply(raised.error)
        except Exception as err:  # the model function's own failure: an error outcome
            return exception_reply(err)
        try:
            return read_turn(value, step)
        except ValueError as err:
            return error_reply("parse_error", f"{self.name}: {err}", repr(value))
