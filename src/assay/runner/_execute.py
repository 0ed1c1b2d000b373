"""Executing case-trials against a target: concurrent workers, per-call timeouts, retries,
pacing, grading, and results handed on in dataset order whatever order they finish in."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.cases import Case
from assay.grading import Grader, Judgment, judge_record
from assay.outcomes import Error, Record
from assay.runner._cache import CACHE_KEY_VERSION, ResponseCache, cache_key, request_of
from assay.runner._options import RateLimiter, RunOptions, Timing, backoff_delay
from assay.runner._tracing import evaluation_span, mark_outcome, request_span
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
    """A finished case-trial: its record and its judgment (status ``error``, without a
    grader, for an error outcome)."""

    item: WorkItem
    record: Record
    judgment: Judgment | None


@dataclass
class EndpointLimits:
    """Limits shared by every run that calls one endpoint (the variants of a matrix): at
    most ``concurrency`` calls in flight and, with ``limiter``, at most its rate."""

    concurrency: int
    limiter: RateLimiter | None = None

    def __post_init__(self) -> None:
        self.slots = asyncio.Semaphore(self.concurrency)


@dataclass
class CacheUse:
    """How an execution uses the response cache: the cache, and whether the target is
    declared deterministic (then every trial of a request shares one reply)."""

    cache: ResponseCache
    deterministic: bool = False
    inflight: dict[str, asyncio.Event] = field(default_factory=dict)


@dataclass
class Execution:
    """One execution's fixed parts: target, options, grader, tracing and clock; optionally
    the response cache and limits shared with other runs on the same endpoint."""

    target: Target
    options: RunOptions
    grader: Grader
    run_id: str = ""
    config_version: str = ""
    tracer: Tracer | None = None
    timing: Timing = field(default_factory=Timing)
    cache: CacheUse | None = None
    shared: EndpointLimits | None = None

    def __post_init__(self) -> None:
        rpm = self.options.rpm
        if self.shared is not None:
            self.limiter = self.shared.limiter
        else:
            self.limiter = RateLimiter(rpm, self.timing) if rpm else None


async def _attempt(ex: Execution, case: Case, ctx: TargetContext) -> Reply:
    if ex.shared is None:
        return await _attempt_now(ex, case, ctx)
    async with ex.shared.slots:
        return await _attempt_now(ex, case, ctx)


async def _attempt_now(ex: Execution, case: Case, ctx: TargetContext) -> Reply:
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


def _key(ex: Execution, item: WorkItem) -> str:
    assert ex.cache is not None
    trial = None if ex.cache.deterministic else item.trial
    return cache_key(ex.config_version, request_of(ex.target, item.case), trial)


async def _served(ex: Execution, item: WorkItem) -> tuple[str, Record | None]:
    """The cache key of a case-trial and, when the cache holds its reply, the record of
    the served reply (its original latency, usage and attempts, marked ``cache.hit``)."""
    assert ex.cache is not None
    key = _key(ex, item)
    waiting = ex.cache.inflight.get(key)
    if waiting is not None:  # the same request is being made: share its reply
        await waiting.wait()
    hit = ex.cache.cache.get(key)
    if hit is None:
        return key, None
    note = {
        "hit": True,
        "key_version": CACHE_KEY_VERSION,
        "created_at": hit.created_at,
        "run_id": hit.run_id,
    }
    record = Record(
        case_id=item.case.id,
        trial=item.trial,
        outcome=hit.reply.outcome,
        attempts=hit.attempts,
        latency_ms=hit.latency_ms,
        usage=hit.reply.usage,
        extra={**hit.reply.extra, "cache": note},
    )
    return key, record


async def _called(
    ex: Execution, item: WorkItem, traceparent: str | None, key: str | None
) -> tuple[Reply, int, list[dict[str, Any]], float, dict[str, Any]]:
    """The target's reply for a case-trial, kept in the cache under ``key`` (when given)
    unless it is an error; the last item is the record's ``cache`` entry."""
    if ex.cache is None or key is None:
        reply, attempts, retried, latency_ms = await call(ex, item, traceparent)
        return reply, attempts, retried, round(latency_ms, 3), {}
    ex.cache.inflight[key] = done = asyncio.Event()
    try:
        reply, attempts, retried, latency_ms = await call(ex, item, traceparent)
        latency = round(latency_ms, 3)
        kept = ex.cache.cache.put(
            key, ex.target.name, reply, latency, attempts, ex.run_id, datetime.now(UTC)
        )
    finally:
        del ex.cache.inflight[key]
        done.set()
    return reply, attempts, retried, latency, {"hit": False, "stored": kept}


async def run_item(ex: Execution, item: WorkItem) -> Done:
    """Run (or serve from the cache), record and grade one case-trial.

    A case-trial served from the cache calls nothing, so it records no span.
    """
    case = item.case
    key: str | None = None
    if ex.cache is not None:
        key, served = await _served(ex, item)
        if served is not None:
            return Done(item, served, judge_record(case, served, ex.grader))
    with request_span(ex.tracer, ex.run_id, case.id, item.trial, ex.config_version) as trace:
        reply, attempts, retried, latency_ms, cached = await _called(
            ex, item, trace.traceparent, key
        )
        mark_outcome(trace, reply.outcome)
        extra = _with_attempts(reply.extra, retried) if retried else reply.extra
        if cached:
            extra = {**extra, "cache": cached}
        record = Record(
            case_id=case.id,
            trial=item.trial,
            outcome=reply.outcome,
            attempts=attempts,
            latency_ms=latency_ms,
            usage=reply.usage,
            trace_id=trace.trace_id,
            extra=extra,
        )
        judged: list[Judgment] = []
        with evaluation_span(ex.tracer, judged):
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
