"""Executing case-trials against a target: concurrent workers, per-call timeouts, retries,
pacing, grading, and results handed on in dataset order whatever order they finish in."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.cases import Case
from assay.grading import Grader, Judgment, judge_record
from assay.outcomes import Error, Record
from assay.runner._options import RateLimiter, RunOptions, Timing, backoff_delay
from assay.runner._tracing import evaluation_span, request_span
from assay.targets import Reply, Target, TargetContext, error_reply, exception_reply

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer


@dataclass(frozen=True)
class WorkItem:
    """One case-trial to run; ``index`` is its place in the emission order."""

    index: int
    case: Case
    trial: int


@dataclass(frozen=True)
class Done:
    """A finished case-trial: its record and the grader's judgment (None for errors)."""

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
) -> tuple[Reply, int, list[str], float]:
    """The final reply for one case-trial, the attempts made, the error classes of the
    retried attempts, and the final attempt's latency in milliseconds."""
    retried: list[str] = []
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
        retried.append(str(getattr(outcome, "error_class", "error")))
        await ex.timing.sleep(
            backoff_delay(attempt, reply.retry_after_s, ex.options, ex.timing.random)
        )
        attempt += 1


async def run_item(ex: Execution, item: WorkItem) -> Done:
    """Run, record and grade one case-trial."""
    case = item.case
    with request_span(ex.tracer, ex.run_id, case.id, item.trial, ex.config_version) as trace:
        reply, attempts, retried, latency_ms = await call(ex, item, trace.traceparent)
        record = Record(
            case_id=case.id,
            trial=item.trial,
            outcome=reply.outcome,
            attempts=attempts,
            latency_ms=round(latency_ms, 3),
            usage=reply.usage,
            trace_id=trace.trace_id,
            extra={**reply.extra, "attempt_errors": retried} if retried else reply.extra,
        )
        judged: list[Judgment] = []
        with evaluation_span(ex.tracer, judged):
            judged.append(judge_record(case, record, ex.grader))
    return Done(item, record, judged[0])


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

    workers = [asyncio.create_task(worker()) for _ in range(max(1, ex.options.concurrency))]
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
