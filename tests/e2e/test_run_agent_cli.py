"""`assay run` of a tiny agent suite driven by a scripted ``function`` model: the stored
records carry each case-trial's trajectory and transcript, the trace has a ``chat`` span
per model call and an ``execute_tool`` span per tool execution, and a bad tool reference
exits 2 naming the suite's file, line and key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import RunAssay

from assay.outcomes import trajectory_of
from assay.store import open_store

APP = '''
import json
import re

from assay.agents import Refused


def cancel_order(order_id: str, state: dict) -> str:
    """Cancel an order that has not shipped.

    Args:
        order_id: The order's id, e.g. A1.
    """
    if state["orders"][order_id] == "shipped":
        raise Refused(f"order {order_id} has shipped")
    state["orders"][order_id] = "cancelled"
    return "cancelled"


def lookup_order(order_id: str, state: dict) -> str:
    return state["orders"].get(order_id, "unknown")


def model(messages, tools):
    """Cancels the order the question names, then reports what the tool said."""
    assert [t["function"]["name"] for t in tools] == ["cancel_order", "find_order"]
    results = [m for m in messages if m["role"] == "tool"]
    if not results:
        order = re.search(r"order (A\\d)", messages[-1]["content"]).group(1)
        return {"content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "cancel_order", "arguments": {"order_id": order}}}]}
    fact = "cancelled" if results[-1]["content"] == "cancelled" else "not_cancelled"
    return {"content": json.dumps({"kind": "answer", "fact": fact, "text": fact})}
'''
CASES = [
    {
        "id": "C1",
        "slice": "cancel",
        "question": "Please cancel order A1.",
        "expected_behavior": "answer",
        "expected_fact": "cancelled",
        "state": {"orders": {"A1": "open", "A2": "shipped"}},
    },
    {
        "id": "C2",
        "slice": "cancel",
        "question": "Please cancel order A2.",
        "expected_behavior": "answer",
        "expected_fact": "not_cancelled",
        "state": {"orders": {"A1": "open", "A2": "shipped"}},
    },
]
SUITE = """\
name: shop-agent
dataset: cases.jsonl
target:
  type: agent
  model: {function: shop_agent:model}
  system: You are the shop's assistant.
  tools:
    - shop_agent:cancel_order
    - ref: %s
      name: find_order
      description: Find an order's status.
  max_steps: 4
trials: 2
"""


def write_suite(folder: Path, lookup: str = "shop_agent:lookup_order") -> Path:
    (folder / "shop_agent.py").write_text(APP, encoding="utf-8")
    lines = "".join(json.dumps(c) + "\n" for c in CASES)
    (folder / "cases.jsonl").write_text(lines, encoding="utf-8")
    suite = folder / "suite.yaml"
    suite.write_text(SUITE % lookup, encoding="utf-8")
    return suite


def test_an_agent_suite_runs_and_stores_each_trajectory_and_its_spans(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite = write_suite(tmp_path)
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    done = run_assay("run", suite, "--store", store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_id = re.match(r"run (\S+) \(completed\)", done.stdout)
    assert run_id, done.stdout[:300]
    opened = open_store(store)
    try:
        records = opened.records(run_id.group(1))
    finally:
        opened.close()
    assert sorted((r.case_id, r.trial) for r in records) == [
        ("C1", 1),
        ("C1", 2),
        ("C2", 1),
        ("C2", 2),
    ]
    for record in records:
        got = trajectory_of(record)
        assert got is not None and got.ended == "answered"
        assert [s.kind for s in got.steps] == ["model", "tool", "model"]
        assert got.state_before == {"orders": {"A1": "open", "A2": "shipped"}}
        step = got.tool_steps[0]
        if record.case_id == "C1":
            assert step.status == "ok" and step.result == "cancelled"
            assert got.state_after == {"orders": {"A1": "cancelled", "A2": "shipped"}}
            assert record.outcome.kind == "answer" and record.outcome.fact == "cancelled"
        else:
            assert step.status == "refused" and step.error == "order A2 has shipped"
            assert got.state_after == got.state_before
            assert record.outcome.kind == "answer" and record.outcome.fact == "not_cancelled"
        messages = record.extra["transcript"]["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]

    traced = run_assay(
        "trace", run_id.group(1), "C2", "--store", store, "--format", "json", cwd=tmp_path
    )
    assert traced.returncode == 0, traced.stderr
    spans = json.loads(traced.stdout)["spans"]
    names = [s["name"] for s in spans]
    assert names.count("chat shop_agent:model") == 2
    assert names.count("execute_tool cancel_order") == 1
    tool = next(s for s in spans if s["name"] == "execute_tool cancel_order")
    assert tool["attributes"]["gen_ai.tool.call.id"] == "c1"
    assert tool["attributes"]["assay.tool.status"] == "refused"
    request = next(s for s in spans if s["name"] == "assay.request")
    assert tool["parent_id"] == request["span_id"]  # under the runner's span
    assert tool["status"] == "error"
    chat = next(s for s in spans if s["name"] == "chat shop_agent:model")
    assert chat["parent_id"] == request["span_id"]
    assert chat["attributes"]["gen_ai.operation.name"] == "chat"
    assert chat["attributes"]["gen_ai.request.model"] == "shop_agent:model"


@pytest.mark.parametrize(
    ("lookup", "said"),
    [
        ("shop_agent:no_such_tool", "shop_agent has no no_such_tool"),
        ("missing_module:lookup", "cannot import missing_module"),
        ("shop_agent:model", "parameter messages has no type hint"),
    ],
)
def test_a_tool_that_cannot_be_offered_exits_2_naming_file_line_and_key(
    run_assay: RunAssay, tmp_path: Path, lookup: str, said: str
) -> None:
    suite = write_suite(tmp_path, lookup)
    done = run_assay("run", suite, "--store", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{suite}:9: target.tools[1] {lookup}: " in done.stderr
    assert said in done.stderr
