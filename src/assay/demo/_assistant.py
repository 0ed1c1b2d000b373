"""The policy assistant end to end: a question in, an outcome (and spans) out.

A question asking to start a return for an order takes the agent path (plan, call the
tool, report); every other question goes retrieval → context assembly → generation.
"""

from __future__ import annotations

from dataclasses import dataclass

from opentelemetry.trace import StatusCode, Tracer

from assay.demo._config import DemoConfig
from assay.demo._generation import Generated, generate, record_chat
from assay.demo._remote import generate_remote
from assay.demo._stages import assemble, retrieve
from assay.demo._tools import (
    ToolFailure,
    ToolResult,
    args_hash,
    failed_result,
    requested_order,
    start_return,
)
from assay.outcomes import Answer, Error, Usage, span_names
from assay.targets.openai import OpenAITarget

TOOL = "start_return"


@dataclass(frozen=True)
class RemoteModel:
    """An OpenAI-compatible model to generate with, and the trace context to forward."""

    llm: OpenAITarget
    traceparent: str | None = None


async def ask(
    question: str,
    tenant: str,
    config: DemoConfig,
    tracer: Tracer,
    model: RemoteModel | None = None,
) -> Generated:
    """Run the assistant on one question for one tenant (``model``: a real model to
    generate with instead of the deterministic reader)."""
    order = requested_order(question)
    if order is not None:
        return _agent(order, config, tracer)
    try:
        selected = await retrieve(question, tenant, config, tracer)
    except LookupError as err:
        message = f"defect policy lookup failed: {err}" if "defect" in str(err) else str(err)
        return Generated(Error(error_class="exception:LookupError", message=message), Usage())
    context = assemble(selected, config, tracer)
    if model is not None:
        return await generate_remote(
            question, context, config, model.llm, tracer, model.traceparent
        )
    return generate(question, context, config, tracer)


def _call_tool(order: str, tracer: Tracer) -> ToolResult:
    with tracer.start_as_current_span(f"execute_tool {TOOL}") as span:
        span.set_attributes(
            {
                span_names.STAGE: "tool_execution",
                span_names.GEN_AI_OPERATION_NAME: "execute_tool",
                span_names.GEN_AI_TOOL_NAME: TOOL,
                span_names.GEN_AI_TOOL_TYPE: "function",
                span_names.TOOL_ARGS_HASH: args_hash({"order_id": order}),
            }
        )
        try:
            result = start_return(order)
        except ToolFailure as err:
            result = failed_result(str(err))
            span.record_exception(err)
            span.set_status(StatusCode.ERROR, str(err))
        span.set_attributes(
            {
                span_names.TOOL_STATUS: result.status,
                span_names.TOOL_RESULT_STATE: result.state,
                span_names.TOOL_RESULT_FACT: result.fact,
            }
        )
        return result


def _agent(order: str, config: DemoConfig, tracer: Tracer) -> Generated:
    with tracer.start_as_current_span(f"chat {config.model}") as span:
        record_chat(span, config, Usage(input_tokens=24, output_tokens=8), "tool_calls")
    result = _call_tool(order, tracer)
    with tracer.start_as_current_span(f"chat {config.model}") as span:
        if config.tool_report == "authoritative":
            fact, text = result.fact, f"Return {result.state}: {result.detail}."
        else:  # reports what it asked for, not what the service answered
            fact, text = "return_started", f"Your return for order {order} has been started."
        record_chat(span, config, Usage(input_tokens=40, output_tokens=len(text.split())), "stop")
        span.set_attribute(span_names.ANSWER_KIND, "answer")
        span.set_attribute(span_names.ANSWER_FACT, fact)
        span.set_attribute(span_names.ANSWER_SOURCE, "tool")
        usage = Usage(input_tokens=64, output_tokens=8 + len(text.split()))
        return Generated(Answer(fact=fact, text=text), usage)
