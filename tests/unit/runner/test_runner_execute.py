"""The executor: dataset order, trials, retries with backoff and Retry-After, timeouts,
pacing, error classes, grader failures and stopping early."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.cases import Case
from assay.grading import Judgment, StructuredGrader
from assay.outcomes import Answer, Error, Record
from assay.runner import (
    Done,
    Execution,
    RateLimiter,
    RunOptions,
    Timing,
    WorkItem,
    backoff_delay,
    execute,
)
from assay.targets import Reply, TargetContext
from assay.targets.scripted import ScriptedTarget


def _case(i: int) -> Case:
    return Case(
        id=f"C{i}", slice="s", question=f"q{i}", expected_behavior="answer", expected_fact="f"
    )


CASES = [_case(i) for i in range(8)]


class FakeSleep:
    """Records every requested wait and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def _items(cases: list[Case], trials: int = 1) -> list[WorkItem]:
    return [
        WorkItem(i, c, t)
        for i, (c, t) in enumerate((c, t) for c in cases for t in range(1, trials + 1))
    ]


def _execute(target: Any, items: list[WorkItem], **options: Any) -> tuple[list[Done], Timing]:
    sleep = FakeSleep()
    timing = Timing(sleep=sleep, random=lambda: 0.5)
    ex = Execution(target, RunOptions(**options), StructuredGrader(), "r1", timing=timing)
    emitted: list[Done] = []
    asyncio.run(execute(ex, items, emitted.append))
    return emitted, timing


def test_records_come_out_in_dataset_order_whatever_order_they_finish() -> None:
    # The first case is the slowest: with 8 workers it finishes last.
    script = {
        c.id: {"kind": "answer", "fact": "f", "delay_s": 0.02 * (8 - i)}
        for i, c in enumerate(CASES)
    }
    finish_order: list[str] = []

    class Tracking(ScriptedTarget):
        async def run(self, case: Case, ctx: TargetContext) -> Reply:
            reply = await super().run(case, ctx)
            finish_order.append(case.id)
            return reply

    emitted, _ = _execute(Tracking(script), _items(CASES), concurrency=8)
    assert finish_order[0] != "C0"  # they really finished out of order
    assert [d.record.case_id for d in emitted] == [c.id for c in CASES]


def test_every_case_runs_once_per_trial_with_its_trial_index() -> None:
    target = ScriptedTarget({}, default={"kind": "answer", "fact": "f"})
    emitted, _ = _execute(target, _items(CASES[:3], trials=3), concurrency=4)
    keys = [d.record.key for d in emitted]
    assert keys == [(c.id, t) for c in CASES[:3] for t in (1, 2, 3)]
    assert all(d.judgment is not None and d.judgment.status == "passed" for d in emitted)


def test_429_is_retried_honouring_retry_after_and_every_attempt_is_recorded() -> None:
    target = ScriptedTarget(
        {
            "C0": {
                "kind": "answer",
                "fact": "f",
                "fail": "http_429",
                "fail_attempts": 2,
                "retry_after_s": 5,
            }
        }
    )
    emitted, timing = _execute(target, _items(CASES[:1]), retries=3, backoff_s=0.5)
    record = emitted[0].record
    assert record.outcome == Answer(fact="f")
    assert record.attempts == 3
    assert record.extra["attempt_errors"] == ["http_429", "http_429"]
    assert [(a["retry_after_s"], a["waited_s"]) for a in record.extra["failed_attempts"]] == [
        (5, 5),
        (5, 5),
    ]
    assert timing.sleep.waits == [5, 5]  # type: ignore[attr-defined]


def test_retries_are_bounded_and_back_off_exponentially() -> None:
    target = ScriptedTarget({"C0": {"fail": "http_5xx"}})
    emitted, timing = _execute(target, _items(CASES[:1]), retries=3, backoff_s=1.0)
    record = emitted[0].record
    assert isinstance(record.outcome, Error) and record.outcome.error_class == "http_5xx"
    assert record.attempts == 4
    assert record.extra["attempt_errors"] == ["http_5xx"] * 3
    # random() = 0.5 gives 75% of each exponential step: 1, 2, 4 seconds.
    assert timing.sleep.waits == [0.75, 1.5, 3.0]  # type: ignore[attr-defined]
    judgment = emitted[0].judgment  # errors get their status without asking the grader
    assert judgment is not None
    assert (judgment.status, judgment.grader) == ("error", "assay")


@pytest.mark.parametrize("failure", ["parse_error", "http_4xx", "raise"])
def test_other_failures_are_not_retried(failure: str) -> None:
    target = ScriptedTarget({"C0": {"fail": failure, "message": "nope"}})
    emitted, timing = _execute(target, _items(CASES[:1]), retries=3)
    record = emitted[0].record
    expected = "exception:RuntimeError" if failure == "raise" else failure
    assert isinstance(record.outcome, Error) and record.outcome.error_class == expected
    assert record.attempts == 1 and timing.sleep.waits == []  # type: ignore[attr-defined]


def test_a_call_over_the_timeout_is_a_timeout_error() -> None:
    target = ScriptedTarget({"C0": {"kind": "answer", "fact": "f", "delay_s": 30}})
    emitted, _ = _execute(target, _items(CASES[:1]), timeout_s=0.05, retries=0)
    outcome = emitted[0].record.outcome
    assert isinstance(outcome, Error) and outcome.error_class == "timeout"


def test_backoff_is_capped_and_retry_after_wins_when_longer() -> None:
    opts = RunOptions(backoff_s=1, max_backoff_s=4, max_retry_after_s=10)
    assert backoff_delay(10, None, opts, lambda: 1.0) == 4
    assert backoff_delay(1, None, opts, lambda: 0.0) == 0.5
    assert backoff_delay(1, 3, opts, lambda: 1.0) == 3
    assert backoff_delay(1, 600, opts, lambda: 1.0) == 10


def test_rate_limiter_spaces_calls_evenly() -> None:
    sleep = FakeSleep()
    limiter = RateLimiter(60, Timing(sleep=sleep, clock=lambda: 100.0))

    async def three() -> None:
        for _ in range(3):
            await limiter.acquire()

    asyncio.run(three())
    assert sleep.waits == [1.0, 2.0]


def test_a_failing_grader_gives_ungraded_never_a_score() -> None:
    class Broken:
        name = "broken"
        version = "1"

        def grade(self, case: Case, record: Record) -> Judgment:
            raise ValueError("judge unavailable")

    target = ScriptedTarget({}, default={"kind": "answer", "fact": "f"})
    ex = Execution(target, RunOptions(), Broken(), "r1")
    emitted: list[Done] = []
    asyncio.run(execute(ex, _items(CASES[:1]), emitted.append))
    judgment = emitted[0].judgment
    assert judgment is not None and judgment.status == "ungraded" and judgment.score is None
    assert "judge unavailable" in judgment.reason


def test_stopping_returns_the_finished_but_unemitted_items_in_order() -> None:
    script = {
        c.id: {"kind": "answer", "fact": "f", "delay_s": 0 if i else 30}
        for i, c in enumerate(CASES)
    }
    ex = Execution(ScriptedTarget(script), RunOptions(concurrency=8), StructuredGrader(), "r")
    emitted: list[Done] = []

    async def scenario() -> list[Done]:
        stop = asyncio.Event()
        task = asyncio.create_task(execute(ex, _items(CASES), emitted.append, stop))
        for _ in range(50):  # let the fast cases finish; C0 is still waiting
            await asyncio.sleep(0)
        stop.set()
        return await task

    leftovers = asyncio.run(scenario())
    assert emitted == []  # C0 never finished, so nothing could be emitted in order
    assert [d.record.case_id for d in leftovers] == [c.id for c in CASES[1:]]


def test_rpm_paces_every_attempt() -> None:
    sleep = FakeSleep()
    timing = Timing(sleep=sleep, clock=lambda: 0.0, random=lambda: 0.5)
    target = ScriptedTarget({}, default={"kind": "answer", "fact": "f"})
    ex = Execution(
        target, RunOptions(rpm=120, concurrency=1), StructuredGrader(), "r", timing=timing
    )
    emitted: list[Done] = []
    asyncio.run(execute(ex, _items(CASES[:3]), emitted.append))
    assert len(emitted) == 3
    assert sleep.waits == [0.5, 1.0]  # the clock stands still: slots at 0, 0.5 and 1.0 s
