"""Executing case-trials against a target: concurrent workers, per-call timeouts, retries,
pacing, grading, and results handed on in dataset order whatever order they finish in."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.cases import Case
from assay.grading import Grader, Judgment, judge_record
from assay.outcomes import Error, Record
from assay.runner._options import RateLimiter, RunOptions, Timing, backoff_delay
from assay.runner._tracing import evaluation_span, mark_outcome, request_span
from assay.targets import Reply, Target, TargetContext, error_reply, exception_reply

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from assay.runner._judging import JudgeRunner


@dataclass(frozen=True)
class WorkItem:
    """One case-trial to run; ``index`` is its place in the emission order."""

    index: int
    case: Case
    trial: int


@dataclass(frozen=True)
class Done:
    """A finished case-trial: its record and its judgment (status ``error``, without a
    grader, for an error outcome)."""

    item: WorkItem
    record: Record
    judgment: Judgment | None


@dataclass
class Execution:
    """One execution's fixed parts: target, options, grader, tracing and clock."""

    target: Target
    options: RunOptions
    grader: Grader
    run_id: str = ""
    config_version: str = ""
    tracer: Tracer | None = None
    timing: Timing = field(default_factory=Timing)
    judge: JudgeRunner | None = None

    def __post_init__(self) -> None:
        rpm = self.options.rpm
        self.limiter = RateLimiter(rpm, self.timing) if rpm else None


async def _attempt(ex: Execution, case: Case, ctx: TargetContext) -> Reply:
    if ex.limiter is not None:
        await ex.limiter.acquire()
    try:
        async with asyncio.timeout(ex.options.timeout_s):
            return await ex.target.run(case, ctx)
    except TimeoutError:
        return error_reply("timeout", f"no reply within {ex.options.timeout_s:g} s")
    except Exception as err:  # the system under test failed: an error outcome, never a crash
        return exception_reply(err)


async def call(
    ex: Execution, item: WorkItem, traceparent: str | None
) -> tuple[Reply, int, list[dict[str, Any]], float]:
    """The final reply for one case-trial, the attempts made, each retried attempt (error
    class, message, latency, wait before the next), and the final attempt's latency in ms."""
    retried: list[dict[str, Any]] = []
    attempt = 1
    while True:
        ctx = TargetContext(ex.run_id, item.trial, attempt, ex.tracer, traceparent)
        started = time.perf_counter()
        reply = await _attempt(ex, item.case, ctx)
        latency_ms = (time.perf_counter() - started) * 1000
        outcome = reply.outcome
        retryable = isinstance(outcome, Error) and outcome.error_class in ex.options.retry_on
        if not retryable or attempt > ex.options.retries:
            return reply, attempt, retried, latency_ms
        wait = backoff_delay(attempt, reply.retry_after_s, ex.options, ex.timing.random)
        retried.append(_failed_attempt(reply, latency_ms, wait))
        await ex.timing.sleep(wait)
        attempt += 1


def _failed_attempt(reply: Reply, latency_ms: float, wait_s: float) -> dict[str, Any]:
    outcome = reply.outcome
    assert isinstance(outcome, Error)
    found: dict[str, Any] = {
        "error_class": outcome.error_class,
        "message": outcome.message,
        "latency_ms": round(latency_ms, 3),
        "waited_s": round(wait_s, 3),
    }
    if reply.retry_after_s is not None:
        found["retry_after_s"] = reply.retry_after_s
    return found


async def run_item(ex: Execution, item: WorkItem) -> Done:
    """Run, record and grade one case-trial."""
    case = item.case
    with request_span(ex.tracer, ex.run_id, case.id, item.trial, ex.config_version) as trace:
        reply, attempts, retried, latency_ms = await call(ex, item, trace.traceparent)
        mark_outcome(trace, reply.outcome)
        record = Record(
            case_id=case.id,
            trial=item.trial,
            outcome=reply.outcome,
            attempts=attempts,
            latency_ms=round(latency_ms, 3),
            usage=reply.usage,
            trace_id=trace.trace_id,
            extra=_with_attempts(reply.extra, retried) if retried else reply.extra,
        )
        judged: list[Judgment] = []
        with evaluation_span(ex.tracer, judged):
            if ex.judge is not None:
                judged.append(await ex.judge.judge(case, record, trace.traceparent, ex.tracer))
            else:
                judged.append(judge_record(case, record, ex.grader))
    return Done(item, record, judged[0])


def _with_attempts(extra: dict[str, Any], retried: list[dict[str, Any]]) -> dict[str, Any]:
    classes = [r["error_class"] for r in retried]
    return {**extra, "attempt_errors": classes, "failed_attempts": retried}


async def _wait(event: asyncio.Event) -> object:
    return await event.wait()


async def execute(
    ex: Execution,
    items: Sequence[WorkItem],
    emit: Callable[[Done], None],
    stop: asyncio.Event | None = None,
) -> list[Done]:
    """Run ``items`` with ``options.concurrency`` workers, calling ``emit`` in list order.

    When ``stop`` is set (Ctrl-C), in-flight calls are abandoned and the finished items
    not yet emitted are returned, in order; after a complete execution, returns [].
    """
    pending = iter(enumerate(items))
    finished: dict[int, Done] = {}
    cursor = 0

    async def worker() -> None:
        nonlocal cursor
        for position, item in pending:
            finished[position] = await run_item(ex, item)
            while cursor in finished:
                emit(finished.pop(cursor))
                cursor += 1

    count = max(1, min(ex.options.concurrency, len(items)))  # no idle workers
    workers = [asyncio.create_task(worker()) for _ in range(count)]
    everything: asyncio.Future[list[None]] = asyncio.gather(*workers)
    stopper: asyncio.Future[object] = asyncio.ensure_future(_wait(stop or asyncio.Event()))
    try:
        watched: list[asyncio.Future[object]] = [everything, stopper]  # type: ignore[list-item]
        await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        stopped = not everything.done()
        if stopped:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            with contextlib.suppress(BaseException):
                everything.exception()
    if not stopped:
        everything.result()  # re-raises a failure of the runner itself (e.g. the store)
        return []
    return [finished[p] for p in sorted(finished)]
