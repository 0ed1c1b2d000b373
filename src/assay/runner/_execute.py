"""Executing case-trials against a target: concurrent workers, per-call timeouts, retries,
pacing, grading, and results handed on in dataset order whatever order they finish in."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.cases import Case
from assay.grading import Grader, Judgment, judge_record
from assay.outcomes import Error, Record
from assay.runner._cache import CacheUse, served_record
from assay.runner._guard import CallBlocked, Interrupted, watching
from assay.runner._options import RateLimiter, RunOptions, Timing, backoff_delay
from assay.runner._record import called_record
from assay.runner._tracing import RequestTrace, evaluation_span, mark_outcome, request_span
from assay.targets import (
    Reply,
    Target,
    TargetContext,
    error_reply,
    exception_reply,
    refuse_non_text,
    scrub,
    with_traceback,
)

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
    repeats: tuple[Judgment, ...] = ()
    """A model judge asked several times: every repeat's judgment, as it is kept."""


@dataclass
class EndpointLimits:
    """Limits shared by every run that calls one endpoint (the variants of a matrix): at
    most ``concurrency`` calls in flight and, with ``limiter``, at most its rate."""

    concurrency: int
    limiter: RateLimiter | None = None

    def __post_init__(self) -> None:
        self.slots = asyncio.Semaphore(self.concurrency)


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
    judge: JudgeRunner | None = None
    cache: CacheUse | None = None
    shared: EndpointLimits | None = None

    def __post_init__(self) -> None:
        rpm = self.options.rpm
        if self.shared is not None:
            self.limiter = self.shared.limiter
        else:
            self.limiter = RateLimiter(rpm, self.timing) if rpm else None
        self.secrets = tuple(s for s in self.target.secrets() if s)  # the target has started


async def bounded(
    send: Callable[[], Awaitable[Reply]], timeout_s: float, limiter: RateLimiter | None = None
) -> Reply:
    """One attempt: ``send()`` paced by ``limiter`` and bounded by ``timeout_s``; a timeout
    is a ``timeout`` error and an exception an error outcome keeping its traceback."""
    if limiter is not None:
        await limiter.acquire()
    task = asyncio.current_task()
    if task is None:
        raise RuntimeError("a call is bounded only inside a task")
    # What ``async with asyncio.timeout(timeout_s)`` does, without its two awaited methods
    # and state machine on every call.
    expiry = _Expiry(task)
    handle = asyncio.get_running_loop().call_later(timeout_s, expiry.fire)
    expired = False
    # A call that blocks the event loop never lets the deadline above fire: the run's
    # watchdog interrupts it (CallBlocked) once it is due.
    watchdog, here = watching(), sys._getframe()
    try:
        try:
            if watchdog is not None:
                watchdog.enter_call(here, timeout_s)
            return await send()
        finally:
            if watchdog is not None:
                watchdog.leave_call(here)
            handle.cancel()
            # the cancellation pending is the deadline's own, not the runner's
            expired = expiry.fired and task.uncancel() <= expiry.cancelling
    except TimeoutError:
        return error_reply("timeout", f"no reply within {timeout_s:g} s")
    except CallBlocked as err:
        return error_reply("timeout", f"no reply within {timeout_s:g} s: {err}")
    except Interrupted:  # the user (or the watchdog) stops the run: not the target's fault
        raise
    except asyncio.CancelledError as err:
        if expired:
            return error_reply("timeout", f"no reply within {timeout_s:g} s")
        if task.cancelling():  # the runner cancelled this call
            raise
        return with_traceback(exception_reply(err), err)  # the target raised it itself
    except BaseException as err:  # SystemExit, KeyboardInterrupt, GeneratorExit
        # from the system under test are its failures: an error outcome, never a crash
        return with_traceback(exception_reply(err), err)


class _Expiry:
    """A call's deadline: when it passes, the call's task is cancelled (once)."""

    __slots__ = ("cancelling", "fired", "task")

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.cancelling = task.cancelling()  # cancellations already requested
        self.fired = False

    def fire(self) -> None:
        self.fired = True
        self.task.cancel()


@dataclass(frozen=True)
class Attempts:
    """The final reply of a retried call, how many attempts it took, each retried attempt
    (error class, message, latency, wait before the next), and the final one's latency."""

    reply: Reply
    attempts: int
    retried: list[dict[str, Any]]
    latency_ms: float


async def with_retries(
    attempt_once: Callable[[int], Awaitable[Reply]],
    options: RunOptions,
    timing: Timing | None = None,
) -> Attempts:
    """Call ``attempt_once(n)`` for attempt n = 1, 2, … while it ends in a retryable error
    (``options.retry_on``), at most ``options.retries`` extra times, waiting as the runner
    does (exponential backoff with jitter, or the server's Retry-After).

    The runner's own retry loop; a grader that calls a model (a judge) uses it too::

        got = await with_retries(
            lambda n: bounded(lambda: endpoint.send(body), options.timeout_s), options
        )
    """
    clock = timing or Timing()
    retried: list[dict[str, Any]] = []
    attempt = 1
    while True:
        started = time.perf_counter()
        reply = await attempt_once(attempt)
        latency_ms = (time.perf_counter() - started) * 1000
        outcome = reply.outcome
        retryable = isinstance(outcome, Error) and outcome.error_class in options.retry_on
        if not retryable or attempt > options.retries:
            return Attempts(reply, attempt, retried, latency_ms)
        wait = backoff_delay(attempt, reply.retry_after_s, options, clock.random)
        retried.append(_failed_attempt(reply, latency_ms, wait))
        await clock.sleep(wait)
        attempt += 1


async def call(
    ex: Execution, item: WorkItem, traceparent: str | None, tracestate: str | None = None
) -> tuple[Reply, int, list[dict[str, Any]], float]:
    """The final reply for one case-trial, the attempts made, each retried attempt (error
    class, message, latency, wait before the next), and the final attempt's latency in ms."""

    async def once(attempt: int) -> Reply:
        ctx = TargetContext(ex.run_id, item.trial, attempt, ex.tracer, traceparent, tracestate)
        timeout_s = ex.options.timeout_s
        if ex.shared is None:
            reply = await bounded(lambda: ex.target.run(item.case, ctx), timeout_s, ex.limiter)
        else:  # a slot of the endpoint's concurrency, shared with the other variants
            async with ex.shared.slots:
                reply = await bounded(lambda: ex.target.run(item.case, ctx), timeout_s, ex.limiter)
        # Masked here too, whatever the target did: an exception's message may quote a key.
        return refuse_non_text(scrub(reply, ex.secrets))

    got = await with_retries(once, ex.options, ex.timing)
    return got.reply, got.attempts, got.retried, got.latency_ms


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
    return ex.cache.key(ex.run_id, ex.target, ex.config_version, item.index, item.case, item.trial)


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
    record = served_record(hit, item.case.id, item.trial)
    return key, record


async def _called(
    ex: Execution, item: WorkItem, trace: RequestTrace, key: str | None
) -> tuple[Reply, int, list[dict[str, Any]], float, dict[str, Any]]:
    """The target's reply for a case-trial, kept in the cache under ``key`` (when given)
    unless it is an error; the last item is the record's ``cache`` entry."""
    if ex.cache is None or key is None:
        reply, attempts, retried, latency_ms = await call(
            ex, item, trace.traceparent, trace.tracestate
        )
        return reply, attempts, retried, round(latency_ms, 3), {}
    ex.cache.inflight[key] = done = asyncio.Event()
    try:
        reply, attempts, retried, latency_ms = await call(
            ex, item, trace.traceparent, trace.tracestate
        )
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
            if ex.judge is not None:
                verdict, again = await ex.judge.judged(case, served, None, ex.tracer)
                return Done(item, served, verdict, tuple(again))
            return Done(item, served, judge_record(case, served, ex.grader))
    with request_span(ex.tracer, ex.run_id, case.id, item.trial, ex.config_version) as trace:
        reply, attempts, retried, latency_ms, cached = await _called(ex, item, trace, key)
        mark_outcome(trace, reply.outcome)
        extra = _with_attempts(reply.extra, retried) if retried else reply.extra
        if cached:
            extra = {**extra, "cache": cached}
        record = called_record(
            case.id,
            item.trial,
            reply.outcome,
            attempts,
            latency_ms,
            reply.usage,
            trace.trace_id,
            extra,
        )
        judged: list[Judgment] = []
        repeats: list[Judgment] = []
        with evaluation_span(ex.tracer, judged):
            if ex.judge is not None:
                verdict, repeats = await ex.judge.judged(case, record, trace.traceparent, ex.tracer)
                judged.append(verdict)
            else:
                judged.append(judge_record(case, record, ex.grader))
    return Done(item, record, judged[0], tuple(repeats))


def _with_attempts(extra: dict[str, Any], retried: list[dict[str, Any]]) -> dict[str, Any]:
    classes = [r["error_class"] for r in retried]
    return {**extra, "attempt_errors": classes, "failed_attempts": retried}


def _retrieved(future: asyncio.Future[list[None]]) -> None:
    # A stop at any moment (a second Ctrl-C included) may leave the gathered workers'
    # failure unread; reading it here keeps asyncio from logging it as never retrieved.
    if not future.cancelled():
        future.exception()


async def _wait(event: asyncio.Event) -> object:
    return await event.wait()


async def execute(
    ex: Execution,
    items: Sequence[WorkItem],
    emit: Callable[[Done], None],
    stop: asyncio.Event | None = None,
    admit: Callable[[WorkItem], bool | Awaitable[bool]] | None = None,
    on_finished: Callable[[Done], None] | None = None,
) -> list[Done]:
    """Run ``items`` with ``options.concurrency`` workers, calling ``emit`` in list order.

    ``admit``: asked (and awaited, when it gives an awaitable) before each item starts;
    once it refuses one, no later item starts
    (those already started finish and are emitted), and the execution is complete.

    When ``stop`` is set (Ctrl-C), in-flight calls are abandoned and the finished items
    not yet emitted are returned, in order; after a complete execution, returns []. When
    the runner itself fails (the store, a grader's crash), the other calls are abandoned,
    the finished items are emitted, and the failure is raised.
    """
    pending = iter(enumerate(items))
    finished: dict[int, Done] = {}
    cursor = 0

    async def worker() -> None:
        nonlocal cursor
        for position, item in pending:
            if admit is not None:
                allowed = admit(item)
                if inspect.isawaitable(allowed):  # a budget may wait for in-flight calls
                    allowed = await allowed
                if not allowed:
                    return
            finished[position] = await run_item(ex, item)
            if on_finished is not None:  # as it finishes, before the earlier ones are emitted
                on_finished(finished[position])
            while cursor in finished:
                emit(finished.pop(cursor))
                cursor += 1

    count = max(1, min(ex.options.concurrency, len(items)))  # no idle workers
    workers = [asyncio.create_task(worker()) for _ in range(count)]
    everything: asyncio.Future[list[None]] = asyncio.gather(*workers)
    everything.add_done_callback(_retrieved)
    stopper: asyncio.Future[object] = asyncio.ensure_future(_wait(stop or asyncio.Event()))
    try:
        watched: list[asyncio.Future[object]] = [everything, stopper]  # type: ignore[list-item]
        await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # cancelled, or interrupted at once: keep what finished
        stopper.cancel()
        await _abandon(workers, everything)
        _emit_finished(finished, emit)
        raise
    stopper.cancel()
    await _abandon(workers, everything)
    failure = _failure(workers)
    if failure is not None:
        _emit_finished(finished, emit)
        raise failure
    if not (stop is not None and stop.is_set()) and not finished:
        return []
    return [finished[p] for p in sorted(finished)]


async def _abandon(workers: list[asyncio.Task[None]], everything: asyncio.Future[Any]) -> None:
    """Cancel the workers still running and wait until they have stopped."""
    running = [task for task in workers if not task.done()]
    for task in running:
        task.cancel()
    if running:
        await asyncio.gather(*running, return_exceptions=True)
    with contextlib.suppress(BaseException):
        everything.exception()


def _emit_finished(finished: dict[int, Done], emit: Callable[[Done], None]) -> None:
    with contextlib.suppress(Exception):  # the failure may be the store itself
        for position in sorted(finished):
            emit(finished.pop(position))


def _failure(workers: list[asyncio.Task[None]]) -> BaseException | None:
    """The first failure of a worker (a cancelled worker is no failure)."""
    for task in workers:
        if task.done() and not task.cancelled() and task.exception() is not None:
            return task.exception()
    return None
