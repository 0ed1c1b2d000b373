"""A trajectory read from an application's own OpenTelemetry spans (GenAI semantic
conventions): a ``chat`` span per model call, an ``execute_tool`` span per tool execution.

An application that runs its own agent loop and exports its spans to ``assay run
--receive-spans`` is graded on the trajectory its spans describe, as if it had returned
it in ``steps``. A record keeps such a trajectory in ``extra["trajectory"]``, marked by
``extra["trajectory_from"] = "spans"``; what the target returned itself always wins.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, get_args

from assay.outcomes import span_names
from assay.outcomes._record import Record, Usage
from assay.outcomes._span import Span
from assay.outcomes._trajectory import (
    TRAJECTORY_KEY,
    ModelStep,
    Step,
    ToolCall,
    ToolStatus,
    ToolStep,
    Trajectory,
    trajectory_extra,
)

TRAJECTORY_FROM_KEY = "trajectory_from"
"""The key of ``Record.extra`` that says where a derived trajectory came from."""
FROM_SPANS = "spans"

CHAT = "chat"
EXECUTE_TOOL = "execute_tool"
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
_STATUSES: tuple[str, ...] = get_args(ToolStatus)


def _operation(span: Span) -> str | None:
    operation = span.attributes.get(span_names.GEN_AI_OPERATION_NAME)
    return operation if operation in (CHAT, EXECUTE_TOOL) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _model_step(span: Span, calls: tuple[ToolCall, ...]) -> ModelStep:
    attributes = span.attributes
    reasons = attributes.get(span_names.GEN_AI_RESPONSE_FINISH_REASONS)
    if isinstance(reasons, str):
        reasons = [reasons]
    finish = str(reasons[0]) if isinstance(reasons, list | tuple) and reasons else None
    tokens_in = _int(attributes.get(span_names.GEN_AI_USAGE_INPUT_TOKENS))
    tokens_out = _int(attributes.get(span_names.GEN_AI_USAGE_OUTPUT_TOKENS))
    usage = None
    if tokens_in is not None or tokens_out is not None:
        usage = Usage(input_tokens=tokens_in, output_tokens=tokens_out)
    return ModelStep(
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
        latency_ms=round(span.duration_ms, 3),
    )


def _call(span: Span) -> ToolCall:
    attributes = span.attributes
    name = attributes.get(span_names.GEN_AI_TOOL_NAME)
    if not isinstance(name, str) or not name:
        name = span.name.removeprefix(EXECUTE_TOOL).strip() or "unknown"
    call_id = attributes.get(span_names.GEN_AI_TOOL_CALL_ID)
    given = attributes.get(GEN_AI_TOOL_CALL_ARGUMENTS)
    arguments: dict[str, Any] | None = None
    raw: str | None = None
    if isinstance(given, dict):
        arguments = given
    elif isinstance(given, str):
        try:
            parsed = json.loads(given)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            arguments = parsed
        else:
            raw = given
    elif given is not None:
        raw = json.dumps(given)
    return ToolCall(
        id=str(call_id) if call_id is not None else None,
        name=name,
        arguments=arguments,
        raw_arguments=raw,
    )


def _status(span: Span) -> ToolStatus:
    """``assay.tool.status`` when the span names one; otherwise ``error`` for a span whose
    status is ERROR or that has ``error.type``, ``ok`` for any other."""
    named = span.attributes.get(span_names.TOOL_STATUS)
    if named in _STATUSES:
        status: ToolStatus = named
        return status
    if span.status == "error" or span.attributes.get(ERROR_TYPE) is not None:
        return "error"
    return "ok"


def _result(span: Span) -> Any:
    given = span.attributes.get(GEN_AI_TOOL_CALL_RESULT)
    if isinstance(given, str):
        try:
            return json.loads(given)
        except ValueError:
            return given
    return given


def _tool_step(span: Span) -> ToolStep:
    status = _status(span)
    call = _call(span)
    latency = round(span.duration_ms, 3)
    if status == "ok":
        return ToolStep(call=call, status=status, result=_result(span), latency_ms=latency)
    error = span.status_message or span.attributes.get(ERROR_TYPE) or status
    return ToolStep(call=call, status=status, error=str(error), latency_ms=latency)


def trajectory_from_spans(spans: Iterable[Span]) -> Trajectory | None:
    """The trajectory an application's GenAI spans describe, in start-time order; None
    when none of ``spans`` is a ``chat`` or ``execute_tool`` span.

    Each ``chat`` span is a model turn whose tool calls are the ``execute_tool`` spans
    that follow it, up to the next model turn; a tool's arguments are read from
    ``gen_ai.tool.call.arguments`` (JSON text), its result from ``gen_ai.tool.call.result``.
    A tool span ends ``error`` when its status is ERROR or it has ``error.type``; the
    attribute ``assay.tool.status`` (``refused``, ``malformed``, …), when present, says
    how it ended instead. The trajectory has no state (spans do not carry it) and ended
    ``answered``: the record's outcome says whether the application answered.
    """
    found = sorted(
        (s for s in spans if _operation(s) is not None), key=lambda s: (s.start_ns, s.span_id)
    )
    if not found:
        return None
    steps: list[Step] = []
    turn: Span | None = None
    tools: list[ToolStep] = []

    def close() -> None:
        if turn is not None:
            steps.append(_model_step(turn, tuple(t.call for t in tools)))
        steps.extend(tools)
        tools.clear()

    for span in found:
        if _operation(span) == CHAT:
            close()
            turn = span
        else:
            tools.append(_tool_step(span))
    close()
    return Trajectory(steps=tuple(steps))


def with_span_trajectory(record: Record, spans: Sequence[Span]) -> Record:
    """``record`` with the trajectory its case-trial's ``spans`` describe in
    ``extra["trajectory"]`` (marked ``trajectory_from: spans``); ``record`` itself when
    it carries a trajectory already (what the target returned wins) or no span is a
    GenAI one."""
    if record.extra.get(TRAJECTORY_KEY) is not None:
        return record
    mine = [
        s for s in spans if s.case_id in (None, record.case_id) and s.trial in (None, record.trial)
    ]
    trajectory = trajectory_from_spans(mine)
    if trajectory is None:
        return record
    extra = {**record.extra, TRAJECTORY_KEY: trajectory_extra(trajectory)}
    extra[TRAJECTORY_FROM_KEY] = FROM_SPANS
    return record.model_copy(update={"extra": extra})
