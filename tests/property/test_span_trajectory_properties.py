"""Any set of spans reads as a trajectory (or None) without failing, keeping every tool
execution, in start-time order, whatever order the spans arrive in."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from assay.outcomes import Span, ToolStep, trajectory_from_spans

ATTRIBUTE = st.one_of(
    st.none(), st.text(max_size=8), st.integers(), st.lists(st.text(max_size=3), max_size=2)
)


@st.composite
def spans(draw: st.DrawFn) -> list[Span]:
    found = []
    for i in range(draw(st.integers(0, 8))):
        operation = draw(st.sampled_from(["chat", "execute_tool", "other", None]))
        attributes: dict[str, Any] = {}
        if operation is not None:
            attributes["gen_ai.operation.name"] = operation
        for key in (
            "gen_ai.tool.name",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
            "gen_ai.usage.input_tokens",
            "gen_ai.response.finish_reasons",
            "assay.tool.status",
            "error.type",
        ):
            if draw(st.booleans()):
                attributes[key] = draw(ATTRIBUTE)
        start = draw(st.integers(0, 10**6))
        found.append(
            Span(
                trace_id="a" * 32,
                span_id=f"{i:016x}",
                name=draw(st.text(max_size=10)),
                start_ns=start,
                end_ns=start + draw(st.integers(0, 10**6)),
                status=draw(st.sampled_from(["unset", "ok", "error"])),
                attributes=attributes,
            )
        )
    return found


@given(spans(), st.randoms())
def test_any_spans_read_in_start_order_whatever_their_arrival(
    given_spans: list[Span], order: Any
) -> None:
    got = trajectory_from_spans(given_spans)
    shuffled = list(given_spans)
    order.shuffle(shuffled)
    assert trajectory_from_spans(shuffled) == got
    operations = [s.attributes.get("gen_ai.operation.name") for s in given_spans]
    tools = sorted(
        (s for s, op in zip(given_spans, operations, strict=True) if op == "execute_tool"),
        key=lambda s: (s.start_ns, s.span_id),
    )
    if got is None:
        assert not {"chat", "execute_tool"} & set(operations)
        return
    assert [s.latency_ms for s in got.tool_steps] == [round(s.duration_ms, 3) for s in tools]
    assert all(isinstance(s, ToolStep) for s in got.tool_steps)
    assert len(got.model_steps) == operations.count("chat")
