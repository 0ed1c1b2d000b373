"""Executing a planned run against the store: batched writes, tracing, signals."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from assay.cases import Dataset, content_hash
from assay.grading import CallingGrader, Grader, Judgment
from assay.outcomes import Record
from assay.report import SequentialMonitor
from assay.runner._budget import BudgetMonitor
from assay.runner._cache import CacheUse
from assay.runner._execute import Done, EndpointLimits, Execution, WorkItem, execute
from assay.runner._guard import SignalGuard, Watchdog, say_on_stderr
from assay.runner._options import RunOptions, Timing
from assay.runner._preload import preload, report_needs_special
from assay.store import RunClaim, RunInfo, RunStore
from assay.targets import Target
from assay.tracing import check_span_limits, reachable_collector, start_tracing

if TYPE_CHECKING:
    from assay.runner._judging import JudgeRunner


class Progress(Protocol):
    """What the runner tells a progress display."""

    def start(self, total: int, done: int) -> None: ...

    def advance(self, record: Record) -> None: ...

    def stop(self) -> None: ...


@dataclass
class RunControl:
    """Optional plumbing: progress display, clock, signal handling, tracing."""

    progress: Progress | None = None
    timing: Timing = field(default_factory=Timing)
    handle_signals: bool = False  # Ctrl-C stops cleanly (needs the main thread)
    otlp_endpoint: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    metric_readers: tuple[Any, ...] = ()  # OpenTelemetry MetricReaders, besides OTLP's


class _Writer:
    """Batches records and judgments into few transactions."""

    def __init__(self, store: RunStore, run_id: str, options: RunOptions, timing: Timing) -> None:
        self.store, self.run_id, self.options, self.timing = store, run_id, options, timing
        self.records: list[Record] = []
        self.judgments: list[Judgment] = []
        self.last = timing.clock()
        self.written = 0
        self.kept: list[Done] = []  # every case-trial added, for the run's report

    def add(self, done: Done) -> None:
        self.kept.append(done)
        self.records.append(done.record)
        if done.judgment is not None:
            self.judgments.append(done.judgment)
        self.judgments.extend(done.repeats)
        full = len(self.records) >= self.options.batch_size
        if full or self.timing.clock() - self.last >= self.options.flush_s:
            self.flush()

    def flush(self) -> None:
        if self.records:
            self.store.add_results(self.run_id, self.records, self.judgments)
            self.written += len(self.records)
        self.records, self.judgments = [], []
        self.last = self.timing.clock()


def _tracing(store: RunStore, run_id: str, enabled: bool, endpoint: str | None) -> Any:
    if not enabled:
        return None
    return start_tracing(store, run_id, otlp_endpoint=endpoint)


def _judge_runner(
    grader: Grader, control: RunControl, cache: CacheUse | None = None, run_id: str = ""
) -> JudgeRunner | None:
    """The runner for a model judge's calls (same timing as the target's; the run's
    response cache keeps its replies too), or None."""
    if not isinstance(grader, CallingGrader):
        return None
    # deferred: the judge's modules load only for a run with a model judge
    from assay.runner._judging import JudgeRunner

    return JudgeRunner(grader, control.timing, cache=cache, run_id=run_id)


def _collector(endpoint: str | None) -> str | None:
    if endpoint is None:
        return None
    return reachable_collector(endpoint)


def _metrics(config_version: str, endpoint: str | None, readers: tuple[Any, ...]) -> Any:
    if endpoint is None and not readers:
        return None
    # deferred: metrics load OpenTelemetry's SDK, which a run without them never needs
    from assay.tracing import start_metrics

    return start_metrics(config_version, endpoint, readers)


def hook_signals(stop: asyncio.Event) -> list[signal.Signals]:
    """Set ``stop`` on SIGINT and SIGTERM; returns the signals hooked."""
    loop = asyncio.get_running_loop()
    hooked: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Loops without Unix signals raise NotImplementedError; outside the main thread
        # the call raises RuntimeError or ValueError. The run then goes on unhooked.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            hooked.append(sig)
    return hooked


def _label(target: Target) -> str:
    """How messages name a target: its callable (``module:function``), else its type."""
    config = target.config()
    return str(config.get("callable") or config.get("type") or target.name)


def _admitting(monitor: SequentialMonitor | None) -> Callable[[WorkItem], bool] | None:
    """Once ``monitor`` is decided, no new case starts (the trials of a case started do)."""
    if monitor is None:
        return None
    started: set[str] = set()

    def admit(item: WorkItem) -> bool:
        if monitor.decided and item.case.id not in started:
            return False
        started.add(item.case.id)
        return True

    return admit


def _within(
    sequential: Callable[[WorkItem], bool] | None, budget: BudgetMonitor | None
) -> Callable[[WorkItem], bool | Awaitable[bool]] | None:
    """What admits an item: the sequential test's rule, then the budget's."""
    if budget is None:
        return sequential

    def admit(item: WorkItem) -> bool | Awaitable[bool]:
        if sequential is not None and not sequential(item):
            return False
        return budget.admit(item)

    return admit


async def _drive(
    ex: Execution,
    items: list[WorkItem],
    writer: _Writer,
    control: RunControl,
    metrics: Any,
    guard: SignalGuard,
    shared_stop: asyncio.Event | None = None,
    monitor: SequentialMonitor | None = None,
    budget: BudgetMonitor | None = None,
) -> bool:
    """Run the items; True when stopped by a signal before the end (``shared_stop``: the
    stop of a matrix, shared by its variants)."""
    stop = shared_stop or asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_stop() -> None:
        loop.call_soon_threadsafe(stop.set)

    guard.on_stop = on_stop

    def emit(done: Done) -> None:
        writer.add(done)
        if monitor is not None:
            passed = done.judgment is not None and done.judgment.status == "passed"
            monitor.add(done.item.case.id, passed)
            monitor.advance()
        if metrics is not None:
            metrics.record(done.item.case, done.record, done.judgment)
        if control.progress is not None:
            control.progress.advance(done.record)

    limit = ex.options.timeout_s + ex.options.blocked_grace_s
    try:
        async with Watchdog(guard, limit, say_on_stderr, _label(ex.target)):
            admit = _within(_admitting(monitor), budget)
            finished = (lambda d: budget.done(d.record)) if budget is not None else None
            leftovers = await execute(ex, items, emit, stop, admit, finished)
    finally:
        guard.on_stop = None
        guard.start_recording()  # from here on, what finished is written
    for done in leftovers:
        emit(done)
    return stop.is_set()


@dataclass
class Plan:
    store: RunStore
    run_id: str
    dataset: Dataset
    target: Target
    grader: Grader
    options: RunOptions
    trace: bool
    done: set[tuple[str, int]] = field(default_factory=set)
    cache: CacheUse | None = None
    shared: EndpointLimits | None = None
    stop: asyncio.Event | None = None
    started: bool = False
    status: str = "failed"
    written: int = 0
    guard: SignalGuard = field(default_factory=SignalGuard)
    claim: RunClaim = field(default_factory=RunClaim)  # no other process runs this run
    finished: list[Done] = field(default_factory=list)
    """The case-trials this execution recorded, in the order they were stored."""
    monitor: SequentialMonitor | None = None
    """A sequential run's test: cases start in its seeded order until it is decided."""
    budget: BudgetMonitor | None = None
    """A run's budget: no case-trial starts once the next could exceed it."""

    def results(self) -> tuple[list[Record], list[Judgment]] | None:
        """The run's records and judgments as held in memory, when they are the whole
        run as stored (a fresh, completed run whose every finished case-trial was
        written), so its report needs no reading back; None otherwise."""
        if self.done or self.status != "completed":
            return None  # a resumed or stopped run: read back, as stored
        if len(self.finished) != self.store.count_records(self.run_id):
            return None  # every record stored was finished here, so equal counts: the same
        finished = self.finished
        if self.monitor is not None:  # run in the seeded order: back to dataset order
            place = {c.id: i for i, c in enumerate(self.dataset.cases)}
            finished = sorted(finished, key=lambda d: (place[d.item.case.id], d.item.trial))
        records = [d.record for d in finished]
        return records, [d.judgment for d in finished if d.judgment is not None]


async def execute_plan(plan: Plan, control: RunControl, create: RunInfo | None) -> tuple[str, int]:
    """Run the plan's pending case-trials; returns the run's status and records written.

    The report is built by the caller, outside the event loop: a big coroutine result
    is formatted by asyncio's signal handling, which costs noticeable time.
    """
    endpoint = _collector(control.otlp_endpoint)  # a bad address fails before the run starts
    if plan.trace:  # so does a bad span limit in the environment
        check_span_limits()
    judge = _judge_runner(plan.grader, control, plan.cache, plan.run_id)
    if judge is not None:
        await judge.start()  # a missing judge key fails before the target is started
    await plan.target.start()
    store, run_id = plan.store, plan.run_id
    try:
        if create is not None:
            store.create_run(create, plan.dataset)
        else:
            store.set_status(run_id, "running")
    except BaseException:
        await plan.target.aclose()
        if judge is not None:
            await judge.aclose()
        raise
    plan.started = True
    store.hold_reserve()  # room to record the run's end should the disk fill up
    cases = plan.dataset.cases
    if plan.monitor is not None:
        by_id = {c.id: c for c in cases}
        cases = tuple(by_id[i] for i in plan.monitor.order)
    pending = [
        (case, trial)
        for case in cases
        for trial in range(1, plan.options.trials + 1)
        if (case.id, trial) not in plan.done
    ]
    items = [WorkItem(i, case, trial) for i, (case, trial) in enumerate(pending)]
    if plan.cache is not None:
        plan.cache.expect(run_id, items)  # keys made, and entries read, ahead of the calls
    config_version = content_hash(plan.target.config())
    session = _tracing(store, run_id, plan.trace, endpoint)
    metrics = _metrics(config_version, endpoint, control.metric_readers)
    ex = Execution(
        plan.target,
        plan.options,
        plan.grader,
        run_id,
        config_version,
        session.tracer if session is not None else None,
        control.timing,
        judge,
        plan.cache,
        plan.shared,
    )
    writer = _Writer(store, run_id, plan.options, control.timing)
    plan.finished = writer.kept
    if control.progress is not None:
        control.progress.start(len(items) + len(plan.done), len(plan.done))
    if report_needs_special(len(plan.dataset.cases), plan.options.trials):
        preload()  # the report's imports, while the case-trials wait on the target
    try:
        interrupted = await _drive(
            ex, items, writer, control, metrics, plan.guard, plan.stop, plan.monitor, plan.budget
        )
        writer.flush()
        plan.status = "interrupted" if interrupted else "completed"
    except (KeyboardInterrupt, asyncio.CancelledError):
        plan.status = "interrupted"
        writer.flush()
        raise
    except BaseException:
        with contextlib.suppress(Exception):  # what finished is kept whatever failed
            writer.flush()
        raise
    finally:
        if control.progress is not None:
            control.progress.stop()
        plan.written = writer.written
        if plan.cache is not None:
            plan.cache.cache.flush()
        if session is not None:
            session.flush()
            session.close()
        if metrics is not None:
            metrics.close()
        await plan.target.aclose()
        if judge is not None:
            await judge.aclose()
    return plan.status, writer.written
