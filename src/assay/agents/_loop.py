"""The agent loop: send the conversation and the tools to the model, run each tool call it
asks for (in order, parallel calls included) and answer it with the result, until it
replies without tool calls, the step limit is reached, a model call fails or a step runs
out of time. Every model turn and tool execution is kept in a ``Trajectory``; when tracing,
each model call is a ``chat`` span and each tool execution an ``execute_tool`` span.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic_core import to_jsonable_python

from assay.agents._model import ChatModel, Turn
from assay.agents._tools import STATE_PARAMETER, Refused, Tool
from assay.outcomes import (
    Ending,
    ModelStep,
    Step,
    ToolCall,
    ToolStatus,
    ToolStep,
    Usage,
    span_names,
)
from assay.targets import Reply, error_reply, exception_reply
from assay.targets.function import ThreadRaised, in_daemon_thread

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

T = TypeVar("T")


class StepTimeout(Exception):
    """A step ran past ``step_timeout_s`` (the message says how long that is)."""


@dataclass(frozen=True)
class Limits:
    """How far the loop may go: at most ``max_steps`` model calls, each step (a model call
    or a tool execution) within ``step_timeout_s`` when set."""

    max_steps: int = 10
    step_timeout_s: float | None = None


@dataclass
class Run:
    """What one loop did: its steps, the conversation, why it ended, the failure that ended
    it (a model call's or a step's timeout), the last model text and the tokens used."""

    messages: list[dict[str, Any]]
    steps: list[Step] = field(default_factory=list)
    ended: Ending = "answered"
    failure: Reply | None = None
    final: Turn | None = None
    last_text: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None

    def count(self, usage: Usage | None) -> None:
        """Add one call's tokens to the run's."""
        if usage is None:
            return
        if usage.input_tokens is not None:
            self.input_tokens = (self.input_tokens or 0) + usage.input_tokens
        if usage.output_tokens is not None:
            self.output_tokens = (self.output_tokens or 0) + usage.output_tokens

    @property
    def usage(self) -> Usage | None:
        """The tokens of every model call, when any was reported."""
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def jsonable(value: Any) -> Any:
    """``value`` as JSON data (dataclasses, models and the like converted; anything else
    by its ``str``)."""
    return to_jsonable_python(value, fallback=str)


def _content(value: Any) -> str:
    """A tool's result as the text of the tool message."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class AgentLoop:
    """Runs one case-trial's loop with ``model`` and ``tools``."""

    def __init__(
        self, model: ChatModel, tools: Mapping[str, Tool], limits: Limits, tracer: Tracer | None
    ) -> None:
        self.model = model
        self.tools = tools
        self.specs = [tool.spec() for tool in tools.values()]
        self.limits = limits
        self.tracer = tracer

    async def run(self, messages: list[dict[str, Any]], state: Any, traceparent: str | None) -> Run:
        """The loop from ``messages``; tools that take ``state`` get (and may change) it."""
        run = Run(messages)
        for step in range(1, self.limits.max_steps + 1):
            turn = await self._model_step(run, step, traceparent)
            if turn is None:
                return run
            if not turn.tool_calls:
                run.final = turn
                return run
            for call in turn.tool_calls:
                if not await self._tool_step(run, call, state):
                    return run
        run.ended = "step_limit"
        return run

    async def _bounded(self, work: Awaitable[T]) -> T:
        """``await work`` within ``step_timeout_s``; ``StepTimeout`` when it runs out (a
        ``TimeoutError`` the work raises itself is its own failure, raised as it is)."""
        if self.limits.step_timeout_s is None:
            return await work
        try:
            async with asyncio.timeout(self.limits.step_timeout_s) as deadline:
                return await work
        except TimeoutError:
            if deadline.expired():
                raise StepTimeout(f"{self.limits.step_timeout_s:g} s") from None
            raise

    async def _model_step(self, run: Run, step: int, traceparent: str | None) -> Turn | None:
        if self.tracer is None:
            return await self._call_model(run, step, traceparent, None)
        with self.tracer.start_as_current_span(f"chat {self.model.name}") as span:
            return await self._call_model(run, step, traceparent, span)

    async def _call_model(
        self, run: Run, step: int, traceparent: str | None, span: Span | None
    ) -> Turn | None:
        started = time.perf_counter()
        try:
            got: Turn | Reply = await self._bounded(
                self.model.turn(run.messages, self.specs, step, traceparent)
            )
        except StepTimeout as limit:
            got = error_reply("timeout", f"the model did not reply within {limit} (step_timeout_s)")
        except TimeoutError as err:  # the client's own timeout
            got = exception_reply(err)
        if isinstance(got, Reply):
            timed_out = getattr(got.outcome, "error_class", None) == "timeout"
            run.ended = "timeout" if timed_out else "model_error"
            run.failure = got
            _chat_span(span, self.model, None, got)
            return None
        run.count(got.usage)
        run.steps.append(
            ModelStep(
                text=got.text,
                tool_calls=got.tool_calls,
                finish_reason=got.finish_reason,
                usage=got.usage,
                latency_ms=_ms(started),
            )
        )
        run.messages.append(got.message)
        if got.text:
            run.last_text = got.text
        _chat_span(span, self.model, got, None)
        return got

    async def _tool_step(self, run: Run, call: ToolCall, state: Any) -> bool:
        """Run one call and answer the model with its result; False when it timed out."""
        if self.tracer is None:
            return await self._execute(run, call, state, None)
        with self.tracer.start_as_current_span(f"execute_tool {call.name}") as span:
            span.set_attributes(
                {
                    span_names.GEN_AI_OPERATION_NAME: "execute_tool",
                    span_names.GEN_AI_TOOL_NAME: call.name,
                    span_names.GEN_AI_TOOL_TYPE: "function",
                }
            )
            if call.id:
                span.set_attribute(span_names.GEN_AI_TOOL_CALL_ID, call.id)
            return await self._execute(run, call, state, span)

    async def _execute(self, run: Run, call: ToolCall, state: Any, span: Span | None) -> bool:
        started = time.perf_counter()
        status, result, error, finished = await self._outcome_of(call, state)
        step = ToolStep(
            call=call,
            status=status,
            result=result,
            error=error,
            latency_ms=_ms(started),
        )
        run.steps.append(step)
        shown = _content(result) if status == "ok" else f"Error ({status}): {error}"
        run.messages.append({"role": "tool", "tool_call_id": call.id or "", "content": shown})
        if span is not None:
            span.set_attribute(span_names.TOOL_STATUS, status)
            if status != "ok":
                span.set_attribute("error.type", status)
                _failed(span, error or status)
        if not finished:
            run.ended = "timeout"
            run.failure = error_reply("timeout", error or "the tool timed out")
        return finished

    async def _outcome_of(
        self, call: ToolCall, state: Any
    ) -> tuple[ToolStatus, Any, str | None, bool]:
        """How the call ended: its status, result, error message, and False when it ran
        out of time."""
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(self.tools) or "none"
            return "unknown_tool", None, f"there is no tool {call.name!r} (tools: {known})", True
        if call.arguments is None:
            shown = call.raw_arguments if call.raw_arguments is not None else ""
            why = f"the arguments are not a JSON object: {shown[:200]!r}"
            return "malformed", None, why, True
        try:
            kwargs = tool.checked(call.arguments)
        except ValueError as err:
            return "malformed", None, f"the arguments do not fit {tool.name}: {err}", True
        if tool.wants_state:
            kwargs[STATE_PARAMETER] = state
        try:
            value = await self._bounded(_call(tool, kwargs))
        except StepTimeout as limit:
            return "error", None, f"no result within {limit} (step_timeout_s)", False
        except Refused as err:
            return "refused", None, str(err) or "the tool declined", True
        except Exception as err:  # the tool failed: shown to the model, the loop goes on
            detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            return "error", None, detail, True
        return "ok", jsonable(value), None, True


async def _call(tool: Tool, kwargs: dict[str, Any]) -> Any:
    """The tool's return value: a coroutine function awaited, any other run in a worker
    thread (so that a slow tool does not hold up other case-trials)."""
    if inspect.iscoroutinefunction(tool.func):
        return await tool.func(**kwargs)
    try:
        value = await in_daemon_thread(lambda: tool.func(**kwargs))
    except ThreadRaised as raised:
        raise RuntimeError(str(raised)) from raised.error
    if inspect.isawaitable(value):
        value = await value
    return value


def _chat_span(
    span: Span | None, model: ChatModel, turn: Turn | None, failed: Reply | None
) -> None:
    """GenAI semantic-convention attributes of one model call on ``span``."""
    if span is None:
        return
    attributes: dict[str, Any] = {
        span_names.GEN_AI_OPERATION_NAME: "chat",
        span_names.GEN_AI_REQUEST_MODEL: model.name,
    }
    if model.provider is not None:
        attributes[span_names.GEN_AI_PROVIDER_NAME] = model.provider
    if turn is not None:
        if turn.response_model:
            attributes[span_names.GEN_AI_RESPONSE_MODEL] = turn.response_model
        if turn.finish_reason:
            attributes[span_names.GEN_AI_RESPONSE_FINISH_REASONS] = [turn.finish_reason]
        usage = turn.usage
        if usage is not None and usage.input_tokens is not None:
            attributes[span_names.GEN_AI_USAGE_INPUT_TOKENS] = usage.input_tokens
        if usage is not None and usage.output_tokens is not None:
            attributes[span_names.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.output_tokens
    if failed is not None:
        outcome = failed.outcome
        attributes["error.type"] = getattr(outcome, "error_class", None) or "error"
        _failed(span, getattr(outcome, "message", None) or "")
    span.set_attributes(attributes)


def _failed(span: Span, message: str) -> None:
    # deferred: opentelemetry is imported only by a traced run
    from opentelemetry.trace import Status, StatusCode

    span.set_status(Status(StatusCode.ERROR, message))
