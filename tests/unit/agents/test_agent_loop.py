"""The agent loop against a scripted OpenAI-compatible model speaking the tools API: tool
calls (parallel ones in order), the honest endings (a tool that fails or declines,
malformed arguments, an unknown tool, the step limit, a model that keeps failing, a step
out of time), the transcript, and a ``chat`` / ``execute_tool`` span for every step."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tests.tool_model import calls, failing, said, tool_call, tool_model, tool_results

from assay.cases import Case
from assay.outcomes import Abstain, Answer, Error, ModelStep, ToolStep, trajectory_of
from assay.outcomes import Record as StoredRecord
from assay.targets import Reply, TargetContext, build_target

SHOP = "tests.unit.agents.shop"
CASE = Case(
    id="E1",
    slice="s",
    question="What is 1 + 2?",
    expected_behavior="answer",
    expected_fact="three",
    state={"count": 0, "orders": {"A1": "open", "A2": "shipped"}},
)


def agent(base_url: str, tools: list[str], **settings: Any) -> Any:
    model = {"base_url": base_url, "model": "tool-mock"}
    refs = [f"{SHOP}:{name}" for name in tools]
    return build_target({"type": "agent", "model": model, "tools": refs, **settings})


def run(target: Any, case: Case = CASE, tracer: Any = None) -> Reply:
    async def go() -> Reply:
        async with target:
            reply: Reply = await target.run(case, TargetContext("r1", 1, 1, tracer))
            return reply

    return asyncio.run(go())


def trajectory(reply: Reply) -> Any:
    record = StoredRecord(case_id="E1", outcome=reply.outcome, extra=reply.extra)
    found = trajectory_of(record)
    assert found is not None
    return found


def test_a_tool_call_is_run_and_its_result_answered_until_the_model_replies() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("add", {"a": 1, "b": 2}, "c1"))
        return said("The sum is 3.")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["add"], system="Use the tools."))
    assert reply.outcome == Answer(text="The sum is 3.")
    got = trajectory(reply)
    assert got.ended == "answered"
    assert [s.kind for s in got.steps] == ["model", "tool", "model"]
    first, tool, last = got.steps
    assert isinstance(first, ModelStep) and first.finish_reason == "tool_calls"
    assert first.tool_calls[0].arguments == {"a": 1, "b": 2}
    assert isinstance(tool, ToolStep) and tool.status == "ok" and tool.result == 3
    assert tool.call.id == "c1"
    assert isinstance(last, ModelStep) and last.text == "The sum is 3."
    assert reply.usage is not None and (reply.usage.input_tokens, reply.usage.output_tokens) == (
        20,
        10,
    )
    # what the model was sent: the system prompt, the question, the tools; then its own
    # call and the tool's result, answered by id
    first_body, second_body = model.bodies
    assert first_body["messages"] == [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": "What is 1 + 2?"},
    ]
    assert first_body["tools"][0]["function"]["name"] == "add"
    assert first_body["tools"][0]["function"]["parameters"]["required"] == ["a", "b"]
    assert second_body["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "3"}
    assert second_body["messages"][-2]["tool_calls"][0]["function"]["name"] == "add"
    # a call without text goes back with empty text: llama-cpp-python's server needs text
    assert second_body["messages"][-2]["content"] == ""
    transcript = reply.extra["transcript"]
    assert transcript["messages"] == [*second_body["messages"], said("The sum is 3.")]
    assert transcript["reply"] == "The sum is 3."


def test_parallel_calls_run_in_order_and_a_failing_tool_is_shown_to_the_model() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(
                tool_call("lookup", {"order_id": "A1001"}, "c1"),
                tool_call("lookup", {"order_id": "A9"}, "c2"),
            )
        return said("A1001 is delivered; A9 was not found.")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["lookup"], parallel_tool_calls=True))
    got = trajectory(reply)
    assert [(s.call.id, s.status) for s in got.tool_steps] == [("c1", "ok"), ("c2", "error")]
    assert got.tool_steps[0].result == {"order_id": "A1001", "status": "delivered"}
    assert got.tool_steps[1].error == "LookupError: no order A9"
    assert got.tool_errors == 1 and got.ended == "answered"
    results = tool_results(model.bodies[1])
    assert [m["tool_call_id"] for m in results] == ["c1", "c2"]
    assert results[1]["content"] == "Error (error): LookupError: no order A9"
    assert model.bodies[0]["parallel_tool_calls"] is True


def test_malformed_arguments_and_an_unknown_tool_are_answered_and_recorded() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(
                tool_call("add", '{"a": 1, "b": ', "bad_json"),
                tool_call("add", "[1, 2]", "not_object"),
                tool_call("add", {"a": 1}, "missing"),
                tool_call("add", {"a": "one", "b": 2}, "wrong_type"),
                tool_call("multiply", {"a": 1, "b": 2}, "unknown"),
            )
        return said("I could not add them.")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["add"]))
    got = trajectory(reply)
    assert [s.status for s in got.tool_steps] == [
        "malformed",
        "malformed",
        "malformed",
        "malformed",
        "unknown_tool",
    ]
    assert got.tool_steps[0].call.arguments is None
    assert got.tool_steps[0].call.raw_arguments == '{"a": 1, "b": '
    assert "missing required argument 'b'" in (got.tool_steps[2].error or "")
    assert "a: Input should be a valid integer" in (got.tool_steps[3].error or "")
    assert got.tool_steps[4].error == "there is no tool 'multiply' (tools: add)"
    assert got.malformed_calls == 5
    shown = [m["content"] for m in tool_results(model.bodies[1])]
    assert all(text.startswith("Error (") for text in shown) and len(shown) == 5
    assert reply.outcome == Answer(text="I could not add them.")


def test_a_declined_operation_is_refused_and_leaves_the_state_as_it_was() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("cancel", {"order_id": "A2"}))
        return said("Order A2 has shipped and cannot be cancelled.")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["cancel"]))
    got = trajectory(reply)
    assert got.tool_steps[0].status == "refused"
    assert got.tool_steps[0].error == "order A2 has shipped; it cannot be cancelled"
    assert got.state_before == got.state_after == CASE.state
    assert tool_results(model.bodies[1])[0]["content"].startswith("Error (refused): order A2")


def test_a_model_that_never_stops_calling_tools_ends_at_the_step_limit() -> None:
    def script(body: dict[str, Any]) -> Any:
        return calls(tool_call("bump", {}), text="Still counting.")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["bump"], max_steps=3))
    got = trajectory(reply)
    assert got.ended == "step_limit"
    assert len(got.model_steps) == 3 and len(got.tool_steps) == 3
    assert len(model.bodies) == 3
    assert reply.outcome == Answer(text="Still counting.")
    assert got.state_after == {**CASE.state, "count": 3}  # type: ignore[dict-item]


def test_a_model_call_that_keeps_failing_is_an_error_keeping_the_trajectory_so_far() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("bump", {}))
        return failing(500)

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["bump"]))
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "http_5xx"
    got = trajectory(reply)
    assert got.ended == "model_error"
    assert [s.kind for s in got.steps] == ["model", "tool"]
    assert got.state_after == {**CASE.state, "count": 1}  # type: ignore[dict-item]


def test_a_step_past_its_timeout_ends_the_loop_as_a_timeout() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("slow", {"seconds": 2}))
        return said("done")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["slow"], step_timeout_s=0.2))
    assert isinstance(reply.outcome, Error) and reply.outcome.error_class == "timeout"
    got = trajectory(reply)
    assert got.ended == "timeout"
    assert got.tool_steps[0].status == "error"
    assert "no result within 0.2 s" in (got.tool_steps[0].error or "")
    assert len(model.bodies) == 1


def test_a_tool_s_own_timeout_is_a_tool_error_and_the_loop_goes_on() -> None:
    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("gives_up", {"order_id": "A1"}))
        return said("The order service is not answering.")

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["gives_up"], step_timeout_s=5))
    got = trajectory(reply)
    assert got.ended == "answered"
    assert got.tool_steps[0].status == "error"
    assert got.tool_steps[0].error == "TimeoutError: the order service did not answer"
    assert reply.outcome == Answer(text="The order service is not answering.")


def test_a_structured_case_reads_a_json_final_message_as_its_outcome() -> None:
    answer = {"kind": "answer", "fact": "three", "text": "1 + 2 = 3", "citations": []}

    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("add", {"a": 1, "b": 2}))
        return said(json.dumps(answer))

    with tool_model(script) as model:
        reply = run(agent(model.base_url, ["add"]))
        assert reply.outcome == Answer(fact="three", text="1 + 2 = 3")
        abstaining = CASE.model_copy(update={"expected_behavior": "abstain", "expected_fact": None})
        text = run(agent(model.base_url, ["add"]), abstaining)
    # a case that expects no fact reads the final message as text, JSON or not
    assert text.outcome == Answer(text=json.dumps(answer))


def test_a_final_answer_that_says_it_does_not_know_is_an_abstention() -> None:
    with tool_model(lambda body: said("I don't know.")) as model:
        reply = run(agent(model.base_url, []))
    assert isinstance(reply.outcome, Abstain)
    assert "tools" not in model.bodies[0]


def test_every_model_call_and_tool_execution_is_a_span() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("add", {"a": 1, "b": 2}, "c1"), tool_call("nope", {}, "c2"))
        return said("3")

    with tool_model(script) as model:
        run(agent(model.base_url, ["add"]), tracer=provider.get_tracer("t"))
    spans: list[ReadableSpan] = list(exporter.get_finished_spans())
    assert [s.name for s in spans] == [
        "chat tool-mock",
        "execute_tool add",
        "execute_tool nope",
        "chat tool-mock",
    ]
    chat = dict(spans[0].attributes or {})
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.request.model"] == "tool-mock"
    assert chat["gen_ai.response.model"] == "tool-mock-1"
    assert chat["gen_ai.usage.input_tokens"] == 10 and chat["gen_ai.usage.output_tokens"] == 5
    assert chat["gen_ai.response.finish_reasons"] == ("tool_calls",)
    tool = dict(spans[1].attributes or {})
    assert tool["gen_ai.operation.name"] == "execute_tool"
    assert tool["gen_ai.tool.name"] == "add" and tool["gen_ai.tool.call.id"] == "c1"
    assert tool["assay.tool.status"] == "ok"
    unknown = spans[2]
    assert unknown.attributes is not None and unknown.attributes["assay.tool.status"] == (
        "unknown_tool"
    )
    assert unknown.status.status_code.name == "ERROR"


def test_the_api_key_is_sent_and_never_recorded(monkeypatch: Any) -> None:
    monkeypatch.setenv("AGENT_TEST_KEY", "sk-agent-secret-123")
    seen: list[str] = []

    def script(body: dict[str, Any]) -> Any:
        if not tool_results(body):
            return calls(tool_call("lookup", {"order_id": "sk-agent-secret-123"}))
        seen.append(json.dumps(body))
        return said("your key is sk-agent-secret-123")

    with tool_model(script) as model:
        target = build_target(
            {
                "type": "agent",
                "model": {
                    "base_url": model.base_url,
                    "model": "m",
                    "api_key_env": "AGENT_TEST_KEY",
                },
                "tools": [f"{SHOP}:lookup"],
            }
        )
        reply = run(target)
    stored = json.dumps({"outcome": vars(reply.outcome), "extra": reply.extra}, default=str)
    assert "sk-agent-secret-123" not in stored and "<redacted>" in stored
