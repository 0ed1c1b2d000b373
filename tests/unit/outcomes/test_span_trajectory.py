"""A trajectory read from an application's GenAI spans."""

from __future__ import annotations

import json
from typing import Any

from assay.outcomes import (
    TRAJECTORY_FROM_KEY,
    Answer,
    ModelStep,
    Record,
    Span,
    ToolStep,
    trajectory_extra,
    trajectory_from_spans,
    trajectory_of,
    with_span_trajectory,
)
from assay.outcomes._trajectory import ToolCall, Trajectory


def span(
    span_id: str,
    start: int,
    attributes: dict[str, Any],
    *,
    name: str = "op",
    status: str = "unset",
    message: str | None = None,
    duration: int = 2_000_000,
) -> Span:
    return Span(
        trace_id="t" * 32,
        span_id=span_id,
        name=name,
        start_ns=start,
        end_ns=start + duration,
        status=status,  # type: ignore[arg-type]
        status_message=message,
        attributes=attributes,
        case_id="c1",
        trial=1,
    )


def chat(span_id: str, start: int, **more: Any) -> Span:
    return span(span_id, start, {"gen_ai.operation.name": "chat", **more}, name="chat m")


def tool(span_id: str, start: int, name: str, **more: Any) -> Span:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    attributes.update(more.pop("attributes", {}))
    return span(span_id, start, attributes, name=f"execute_tool {name}", **more)


def test_no_genai_span_is_no_trajectory() -> None:
    assert trajectory_from_spans([]) is None
    assert trajectory_from_spans([span("a", 1, {"http.method": "POST"})]) is None


def test_a_two_tool_loop_in_start_order_with_a_failing_tool() -> None:
    spans = [  # given out of order: read by start time
        chat("m2", 50, **{"gen_ai.response.finish_reasons": ["stop"]}),
        tool(
            "t2",
            30,
            "charge",
            status="error",
            message="card declined",
            attributes={"gen_ai.tool.call.id": "c2", "error.type": "PaymentError"},
        ),
        tool(
            "t1",
            20,
            "lookup",
            attributes={
                "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": '{"order": "A1"}',
                "gen_ai.tool.call.result": '{"total": 12}',
            },
        ),
        chat(
            "m1",
            10,
            **{"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 7},
        ),
        span("x", 5, {"http.route": "/answer"}),
    ]
    got = trajectory_from_spans(spans)
    assert got is not None
    kinds = [(s.kind, s.tool if isinstance(s, ToolStep) else None) for s in got.steps]
    assert kinds == [("model", None), ("tool", "lookup"), ("tool", "charge"), ("model", None)]
    first = got.steps[0]
    assert isinstance(first, ModelStep)
    assert [c.name for c in first.tool_calls] == ["lookup", "charge"]
    assert first.usage is not None and first.usage.input_tokens == 100
    lookup, charge = got.tool_steps
    assert lookup.status == "ok" and lookup.call.id == "c1"
    assert lookup.call.arguments == {"order": "A1"}
    assert lookup.result == {"total": 12}
    assert charge.status == "error" and charge.error == "card declined"
    last = got.steps[-1]
    assert isinstance(last, ModelStep) and last.finish_reason == "stop"
    assert got.ended == "answered" and got.state_before is None


def test_error_type_alone_fails_the_tool_and_names_the_error() -> None:
    got = trajectory_from_spans([tool("t", 1, "send", attributes={"error.type": "Timeout"})])
    assert got is not None
    assert got.tool_steps[0].status == "error"
    assert got.tool_steps[0].error == "Timeout"


def test_assay_tool_status_says_a_refusal() -> None:
    attributes = {"assay.tool.status": "refused", "error.type": "refused"}
    got = trajectory_from_spans([tool("t", 1, "refund", status="error", attributes=attributes)])
    assert got is not None and got.tool_steps[0].status == "refused"


def test_arguments_that_are_not_a_json_object_are_kept_raw() -> None:
    got = trajectory_from_spans(
        [tool("t", 1, "f", attributes={"gen_ai.tool.call.arguments": "[1, 2"})]
    )
    assert got is not None
    assert got.tool_steps[0].call.arguments is None
    assert got.tool_steps[0].call.raw_arguments == "[1, 2"


def test_a_stored_trajectory_reads_back_the_same() -> None:
    got = trajectory_from_spans([chat("m", 1), tool("t", 2, "f"), chat("n", 3)])
    assert got is not None
    record = Record(case_id="c1", trial=1, outcome=Answer(text="ok"))
    again = trajectory_of(
        record.model_copy(update={"extra": {"trajectory": trajectory_extra(got)}})
    )
    assert again == got


def test_the_records_own_trajectory_wins_over_spans() -> None:
    own = Trajectory(steps=(ToolStep(call=ToolCall(name="mine"), status="ok"),))
    record = Record(
        case_id="c1",
        trial=1,
        outcome=Answer(text="ok"),
        extra={"trajectory": trajectory_extra(own)},
    )
    assert with_span_trajectory(record, [tool("t", 1, "theirs")]) is record


def test_a_record_without_one_gets_the_spans_trajectory_marked_as_such() -> None:
    record = Record(case_id="c1", trial=1, outcome=Answer(text="ok"), extra={"k": 1})
    got = with_span_trajectory(record, [tool("t", 1, "lookup")])
    assert got.extra["k"] == 1
    assert got.extra[TRAJECTORY_FROM_KEY] == "spans"
    found = trajectory_of(got)
    assert found is not None and [s.tool for s in found.tool_steps] == ["lookup"]
    assert with_span_trajectory(record, [span("a", 1, {})]) is record
    assert json.dumps(got.extra)  # stored as JSON
