"""The store's own tracer records exactly what the OpenTelemetry SDK records."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, Status, StatusCode, TraceFlags
from opentelemetry.trace.propagation import set_span_in_context

from assay.outcomes import Span
from assay.tracing import start_tracing, traceparent
from assay.tracing._session import TracingSession, sdk_tracing
from assay.tracing._store_tracer import StoreTracer


class Sink:
    def __init__(self) -> None:
        self.spans: list[Span] = []

    def add_spans(self, run_id: str, spans: Sequence[Span]) -> None:
        self.spans.extend(spans)


def script(tracer: trace.Tracer) -> list[str]:
    """Spans of every kind the runner, targets and user code make; the traceparents seen."""
    seen: list[str] = []
    root_attributes: dict[str, str | int] = {
        "assay.run.id": "r",
        "assay.case.id": "C1",
        "assay.trial": 2,
    }
    root = tracer.start_span("assay.request", attributes=root_attributes)
    with trace.use_span(root, end_on_exit=True):
        seen.append(traceparent() or "")
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attributes(
                {
                    "gen_ai.request.model": "m",
                    "gen_ai.request.temperature": 0.0,
                    "gen_ai.response.finish_reasons": ["stop"],
                    "nested": {"a": [1, 2]},
                    "none": None,
                    "gen_ai.usage.input_tokens": 3,
                    "flag": True,
                }
            )
            chat.set_attribute("gen_ai.request.model", "m2")  # moves to the end
            chat.set_attribute("", "dropped")
            chat.set_attribute("ids", ("a", "b"))
            chat.set_attributes({1: "key made a string"})  # type: ignore[dict-item]
            chat.update_name("chat m2")
            seen.append(traceparent() or "")
        with pytest.raises(LookupError), tracer.start_as_current_span("fetch") as fetch:
            fetch.add_event("note", {"k": "v"})
            raise LookupError("no such section")
        with tracer.start_as_current_span("failing") as failing:
            failing.record_exception(ValueError("boom"), attributes={"extra": 1})
            failing.set_status(Status(StatusCode.ERROR, "boom"))
            failing.set_status(StatusCode.OK)
            failing.set_status(StatusCode.ERROR, "after ok: ignored")
        with tracer.start_as_current_span("described") as described:
            described.set_status(StatusCode.ERROR, "by code")
        with tracer.start_span("manual", record_exception=False) as manual, pytest.raises(KeyError):
            raise KeyError("k")
        manual.set_attribute("after", "the end")
        root.set_attribute("assay.outcome.kind", "answer")
    remote = SpanContext(0xABC, 0xDEF, is_remote=True, trace_flags=TraceFlags(1))
    with (
        tracer.start_as_current_span(
            "continued",
            context=set_span_in_context(NonRecordingSpan(remote)),
            attributes={"assay.case.id": "C2"},
        ),
        tracer.start_as_current_span("child"),
    ):
        seen.append(traceparent() or "")
    return seen


def normalized(spans: list[Span], seen: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The spans and traceparents with ids and times replaced by their order of appearance."""
    ids: dict[str, str] = {}

    def named(value: str | None) -> str | None:
        if value is None:
            return None
        return ids.setdefault(value, f"id{len(ids)}")

    found = []
    for span in spans:
        row = span.model_dump()
        for key in ("trace_id", "span_id", "parent_id"):
            row[key] = named(row[key])
        assert row["start_ns"] <= row["end_ns"]
        row["start_ns"] = row["end_ns"] = 0
        row["attributes"] = list(row["attributes"].items())  # order matters in the store
        row["attributes"] = [
            (k, "<stack>" if k == "exception.stacktrace" else v) for k, v in row["attributes"]
        ]
        found.append(row)
    parents = []
    for value in seen:
        _version, trace_id, span_id, flags = value.split("-")
        parents.append(f"{named(trace_id)}-{named(span_id)}-{flags}")
    return found, parents


def recorded(start: Callable[..., TracingSession]) -> tuple[list[dict[str, Any]], list[str]]:
    sink = Sink()
    session = start(sink, "run-1", batch_size=3)
    seen = script(session.tracer)
    assert session.open_traces() == 1  # the continued trace's root is buffered, not written
    session.close()
    assert session.open_traces() == 0
    return normalized(sink.spans, seen)


def test_the_store_tracer_stores_what_the_sdk_stores() -> None:
    light = recorded(start_tracing)
    sdk = recorded(sdk_tracing)
    assert light == sdk
    spans, parents = light
    assert len(spans) == 8 and len(parents) == 3
    chat = next(s for s in spans if s["name"] == "chat m2")
    assert chat["attributes"][-3:] == [
        ("gen_ai.request.model", "m2"),
        ("ids", ["a", "b"]),
        ("1", "key made a string"),
    ]
    assert ("nested", {"a": (1, 2)}) in chat["attributes"]
    assert next(s for s in spans if s["name"] == "child")["case_id"] == "C2"


def test_without_a_collector_the_store_tracer_is_used() -> None:
    session = start_tracing(Sink(), "run-1")
    assert isinstance(session.tracer, StoreTracer)
    session.close()


def test_span_limits_from_the_environment_apply_as_in_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "3")
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "4")
    light = recorded(start_tracing)
    assert light == recorded(sdk_tracing)
    chat = next(s for s in light[0] if s["name"] == "chat m2")
    kept = [("gen_ai.request.model", "m2"), ("ids", ["a", "b"]), ("1", "key ")]
    assert chat["attributes"] == kept


def test_a_current_span_decorates_functions_and_coroutines_as_the_sdk_does() -> None:
    def decorated(tracer: trace.Tracer) -> list[str]:
        @tracer.start_as_current_span("sync")
        def sync() -> str:
            return traceparent() or ""

        @tracer.start_as_current_span("async")
        async def later() -> str:
            await asyncio.sleep(0)
            return traceparent() or ""

        return [sync(), sync(), asyncio.run(later())]

    found = []
    for start in (start_tracing, sdk_tracing):
        sink = Sink()
        session = start(sink, "run-1")
        seen = decorated(session.tracer)
        session.close()
        assert len(set(seen)) == 3  # a new span for each call
        found.append(normalized(sink.spans, seen))
    assert found[0] == found[1]
    assert [s["name"] for s in found[0][0]] == ["sync", "sync", "async"]


def test_the_store_holds_the_same_span_rows_from_either_tracer(tmp_path: Path) -> None:
    """The store tracer writes rows straight to the store; the SDK's spans go through
    ``add_spans``: the stored rows are the same, attribute text included."""
    from sqlalchemy import select

    from assay.store import open_store
    from assay.store._schema import spans

    found = []
    for start in (start_tracing, sdk_tracing):
        store = open_store(f"sqlite:///{tmp_path / f'{start.__name__}.db'}")
        session = start(store, "run-1", batch_size=3)
        seen = script(session.tracer)
        session.close()
        with store.engine.connect() as conn:
            rows = [dict(r) for r in conn.execute(select(spans)).mappings()]
        store.close()
        ids: dict[str, str] = {}
        for row in rows:
            for key in ("trace_id", "span_id", "parent_id"):
                if row[key] is not None:
                    row[key] = ids.setdefault(row[key], f"id{len(ids)}")
            row["start_ns"] = row["end_ns"] = 0
            attributes = json.loads(row["attributes"])
            if "exception.stacktrace" in attributes:  # the frames differ between tracers
                attributes["exception.stacktrace"] = "<stack>"
                row["attributes"] = json.dumps(attributes, separators=(",", ":"))
        found.append((rows, len(seen)))
    assert found[0] == found[1]
    assert len(found[0][0]) == 8


def test_a_span_started_with_none_current_is_the_root_of_a_new_trace() -> None:
    sink = Sink()
    tracer = StoreTracer(sink, "run-1")  # type: ignore[arg-type]
    first = tracer.start_span("assay.request", attributes={"assay.case.id": "C1"})
    second = tracer.start_span("assay.request")
    for span in (first, second):
        ctx = span.get_span_context()
        assert ctx.is_valid and not ctx.is_remote
        assert ctx.trace_flags == TraceFlags(TraceFlags.SAMPLED | TraceFlags.RANDOM_TRACE_ID)
        assert tracer.roots[ctx.trace_id] is span
    assert first.get_span_context().trace_id != second.get_span_context().trace_id
    first.end()
    second.end()
    tracer.force_flush()
    assert tracer.roots == {}
    assert [(s.parent_id, s.case_id) for s in sink.spans] == [(None, "C1"), (None, None)]
