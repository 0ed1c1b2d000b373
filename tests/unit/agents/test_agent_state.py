"""The case's state belongs to one attempt of one case-trial: concurrent trials never share
it, and an attempt the runner retries starts from a fresh copy, so the state the record
reports shows each tool applied once."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tests.tool_model import calls, failing, said, tool_call, tool_model, tool_results

from assay.cases import Case
from assay.grading import StructuredGrader
from assay.outcomes import Answer, Record, trajectory_of
from assay.runner import Execution, RunOptions, Timing, WorkItem, run_item
from assay.targets import build_target

CASE = Case(
    id="E1",
    slice="s",
    question="Count once.",
    expected_behavior="answer",
    expected_fact="counted",
    state={"count": 0},
)


def bump_once(body: dict[str, Any]) -> Any:
    if not tool_results(body):
        return calls(tool_call("bump", {}))
    return said("Counted.")


def agent(base_url: str) -> Any:
    return build_target(
        {
            "type": "agent",
            "model": {"base_url": base_url, "model": "m"},
            "tools": ["tests.unit.agents.shop:bump"],
        }
    )


async def records(target: Any, options: RunOptions, trials: int) -> list[Record]:
    async def no_wait(seconds: float) -> None:
        return None

    ex = Execution(target, options, StructuredGrader(), "r1", timing=Timing(no_wait))
    await target.start()
    try:
        done = await asyncio.gather(
            *(run_item(ex, WorkItem(0, CASE, trial)) for trial in range(1, trials + 1))
        )
    finally:
        await target.aclose()
    return [d.record for d in done]


def test_concurrent_trials_each_start_from_the_case_state() -> None:
    with tool_model(bump_once) as model:
        found = asyncio.run(records(agent(model.base_url), RunOptions(concurrency=16), 24))
    assert len(found) == 24
    for record in found:
        got = trajectory_of(record)
        assert got is not None and got.ended == "answered"
        assert (got.state_before, got.state_after) == ({"count": 0}, {"count": 1})
    assert CASE.state == {"count": 0}  # the case's own state is never changed


def test_a_retried_attempt_starts_from_fresh_state_so_the_tool_applies_once() -> None:
    failed = threading.Event()

    def script(body: dict[str, Any]) -> Any:
        # the first attempt's second model call fails, after its tool ran
        if tool_results(body) and not failed.is_set():
            failed.set()
            return failing(503)
        return bump_once(body)

    with tool_model(script) as model:
        (record,) = asyncio.run(records(agent(model.base_url), RunOptions(retries=2), 1))
    assert record.attempts == 2 and record.extra["attempt_errors"] == ["http_5xx"]
    assert record.outcome == Answer(text="Counted.")
    got = trajectory_of(record)
    assert got is not None and got.ended == "answered"
    assert got.state_after == {"count": 1}
    assert [s.tool for s in got.tool_steps] == ["bump"]
