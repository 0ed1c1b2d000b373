"""An inspect_ai sample's tool calls as an assay trajectory, and the text of its messages.

An assistant message is a model step (its text and the tool calls it asked for); a tool
message is the execution of one of those calls. inspect records a failed execution as the
tool message's ``error`` (``{type, message}``), read here as:

- ``approval``: the call was refused (``refused``);
- ``parsing`` for a tool that does not exist ("Tool NAME not found"): ``unknown_tool``;
- any other ``parsing``, or a call whose arguments inspect could not parse
  (``parse_error``): ``malformed``;
- anything else (``unknown``, ``timeout``, ``permission``, ``limit``…): ``error``.

A sample ended by inspect's ``message`` limit ended at its step limit; by its ``time`` or
``working`` limit, by a timeout.
"""

from __future__ import annotations

import re
from typing import Any

from assay.outcomes import Ending, ModelStep, Step, ToolCall, ToolStatus, ToolStep, Trajectory

_UNKNOWN_TOOL = re.compile(r"^Tool \S+ not found")
_ENDINGS: dict[str, Ending] = {"message": "step_limit", "time": "timeout", "working": "timeout"}


def resolve(value: Any, attachments: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("attachment://"):
        return attachments.get(value.removeprefix("attachment://"), value)
    return value


def text(content: Any, attachments: dict[str, Any]) -> str:
    """The text of a message content: a string or a list of content parts."""
    content = resolve(content, attachments)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(resolve(part.get("text", ""), attachments)))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return "" if content is None else str(content)


def _call(data: dict[str, Any]) -> ToolCall:
    arguments = data.get("arguments")
    parse_error = data.get("parse_error")
    readable = isinstance(arguments, dict) and not parse_error
    return ToolCall(
        id=str(data["id"]) if data.get("id") is not None else None,
        name=str(data.get("function") or "?"),
        arguments=arguments if readable else None,
        raw_arguments=None if readable else str(parse_error or arguments),
    )


def _status(call: ToolCall, error: Any) -> ToolStatus:
    if call.arguments is None:
        return "malformed"
    if not isinstance(error, dict):
        return "ok" if error is None else "error"
    kind, message = error.get("type"), str(error.get("message") or "")
    if kind == "approval":
        return "refused"
    if kind == "parsing":
        return "unknown_tool" if _UNKNOWN_TOOL.match(message) else "malformed"
    return "error"


def trajectory_from_sample(sample: dict[str, Any]) -> Trajectory | None:
    """The trajectory of a sample that called tools, or None when it called none."""
    attachments = sample.get("attachments") or {}
    messages = [m for m in sample.get("messages") or [] if isinstance(m, dict)]
    if not any(m.get("role") == "tool" or m.get("tool_calls") for m in messages):
        return None
    steps: list[Step] = []
    calls: dict[str, ToolCall] = {}
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            asked = tuple(_call(c) for c in message.get("tool_calls") or [] if isinstance(c, dict))
            calls.update({c.id: c for c in asked if c.id is not None})
            said = text(message.get("content"), attachments)
            steps.append(ModelStep(text=said or None, tool_calls=asked))
        elif role == "tool":
            call_id = message.get("tool_call_id")
            call = calls.get(str(call_id)) or ToolCall(
                id=str(call_id) if call_id is not None else None,
                name=str(message.get("function") or "?"),
            )
            error = message.get("error")
            status = _status(call, error)
            steps.append(
                ToolStep(
                    call=call,
                    status=status,
                    result=text(message.get("content"), attachments) or None,
                    error=str(error.get("message")) if isinstance(error, dict) else None,
                )
            )
    limit = sample.get("limit")
    kind = limit.get("type") if isinstance(limit, dict) else None
    return Trajectory(steps=tuple(steps), ended=_ENDINGS.get(str(kind), "answered"))
