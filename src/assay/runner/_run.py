"""Running a suite into the store: start a run or resume one, stop cleanly on Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from assay._version import __version__
from assay.cases import Dataset, content_hash
from assay.errors import AssayConfigError
from assay.grading import Grader, Judgment
from assay.load import Suite, load_suite
from assay.outcomes import Record
from assay.report import Report
from assay.runner._execute import Done, Execution, WorkItem, execute
from assay.runner._options import RunOptions, Timing
from assay.runner._provenance import git_commit, new_run_id, package_versions
from assay.runner._report import headline, report_for_run, run_metadata
from assay.runner._select import Selection, select
from assay.store import RunInfo, RunStore, redact
from assay.targets import Target


class Progress(Protocol):
    """What the runner tells a progress display."""

    def start(self, total: int, done: int) -> None: ...

    def advance(self, record: Record) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Overrides:
    """Command-line values that replace the suite's (None keeps the suite's)."""

    concurrency: int | None = None
    trials: int | None = None
    timeout_s: float | None = None
    retries: int | None = None
    rpm: float | None = None
    trace: bool | None = None


@dataclass(frozen=True)
class RunResult:
    """How a run ended and its report."""

    run_id: str
    status: str
    report: Report
    ran: int
    skipped: int = 0


@dataclass
class RunControl:
    """Optional plumbing: progress display, clock, signal handling, tracing."""

    progress: Progress | None = None
    timing: Timing = field(default_factory=Timing)
    handle_signals: bool = False
    otlp_endpoint: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def options_for(suite: Suite, overrides: Overrides) -> RunOptions:
    """The suite's run settings with any overrides applied."""
    s = suite.settings
    opts = RunOptions(
        concurrency=s.concurrency,
        trials=s.trials,
        timeout_s=s.timeout_s,
        retries=s.retries,
        rpm=s.rpm,
    )
    changed = {
        k: v
        for k, v in vars(overrides).items()
        if v is not None and k in RunOptions.__dataclass_fields__
    }
    for key, value in changed.items():
        if key in ("concurrency", "trials") and value < 1:
            raise AssayConfigError(f"--{key} {value}: must be at least 1")
    return replace(opts, **changed)


class _Writer:
    """Batches records and judgments into few transactions."""

    def __init__(self, store: RunStore, run_id: str, options: RunOptions, timing: Timing) -> None:
        self.store, self.run_id, self.options, self.timing = store, run_id, options, timing
        self.records: list[Record] = []
        self.judgments: list[Judgment] = []
        self.last = timing.clock()
        self.written = 0

    def add(self, done: Done) -> None:
        self.records.append(done.record)
        if done.judgment is not None:
            self.judgments.append(done.judgment)
        full = len(self.records) >= self.options.batch_size
        if full or self.timing.clock() - self.last >= self.options.flush_s:
            self.flush()

    def flush(self) -> None:
        if self.records:
            self.store.add_records(self.run_id, self.records)
            self.store.add_judgments(self.run_id, self.judgments)
            self.written += len(self.records)
        self.records, self.judgments = [], []
        self.last = self.timing.clock()


def _tracing(store: RunStore, run_id: str, enabled: bool, endpoint: str | None) -> Any:
    if not enabled:
        return None
    try:
        from assay.tracing import start_tracing
    except ImportError:
        return None
    return start_tracing(store, run_id, otlp_endpoint=endpoint)


async def _lifecycle(target: Target, method: str) -> None:
    hook = getattr(target, method, None)
    if hook is not None:
        await hook()


async def _drive(
    ex: Execution, items: list[WorkItem], writer: _Writer, control: RunControl
) -> bool:
    """Run the items; True when stopped by a signal before the end."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    hooked: list[signal.Signals] = []
    if control.handle_signals:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
                hooked.append(sig)

    def emit(done: Done) -> None:
        writer.add(done)
        if control.progress is not None:
            control.progress.advance(done.record)

    try:
        leftovers = await execute(ex, items, emit, stop)
    finally:
        for sig in hooked:
            loop.remove_signal_handler(sig)
    for done in leftovers:
        emit(done)
    return stop.is_set()


@dataclass
class _Plan:
    store: RunStore
    run_id: str
    dataset: Dataset
    target: Target
    grader: Grader
    options: RunOptions
    trace: bool
    done: set[tuple[str, int]] = field(default_factory=set)
    started: bool = False
    status: str = "failed"
    written: int = 0


async def _execute_plan(
    plan: _Plan, control: RunControl, create: RunInfo | None
) -> tuple[str, int]:
    """Run the plan's pending case-trials; returns the run's status and records written.

    The report is built by the caller, outside the event loop: a big coroutine result
    is formatted by asyncio's signal handling, which costs noticeable time.
    """
    await _lifecycle(plan.target, "start")
    store, run_id = plan.store, plan.run_id
    try:
        if create is not None:
            store.create_run(create, plan.dataset.cases)
        else:
            store.set_status(run_id, "running")
    except BaseException:
        await _lifecycle(plan.target, "aclose")
        raise
    plan.started = True
    pending = [
        (case, trial)
        for case in plan.dataset.cases
        for trial in range(1, plan.options.trials + 1)
        if (case.id, trial) not in plan.done
    ]
    items = [WorkItem(i, case, trial) for i, (case, trial) in enumerate(pending)]
    config_version = content_hash(plan.target.config())
    session = _tracing(store, run_id, plan.trace, control.otlp_endpoint)
    ex = Execution(
        plan.target,
        plan.options,
        plan.grader,
        run_id,
        config_version,
        session.tracer if session is not None else None,
        control.timing,
    )
    writer = _Writer(store, run_id, plan.options, control.timing)
    if control.progress is not None:
        control.progress.start(len(items) + len(plan.done), len(plan.done))
    try:
        interrupted = await _drive(ex, items, writer, control)
        writer.flush()
        plan.status = "interrupted" if interrupted else "completed"
    except (KeyboardInterrupt, asyncio.CancelledError):
        plan.status = "interrupted"
        writer.flush()
        raise
    finally:
        if control.progress is not None:
            control.progress.stop()
        plan.written = writer.written
        if session is not None:
            session.flush()
            session.close()
        await _lifecycle(plan.target, "aclose")
    return plan.status, writer.written


def _run_plan(plan: _Plan, control: RunControl, create: RunInfo | None) -> RunResult:
    """Execute the plan and record how the run ended, whatever happened."""
    report: Report | None = None
    # Objects alive before the run (modules, the cases) need no garbage collection while
    # it runs: freezing them keeps full collections from rescanning them thousands of times.
    gc.freeze()
    try:
        asyncio.run(_execute_plan(plan, control, create))
    except KeyboardInterrupt:
        plan.status = "interrupted"
        raise
    finally:
        gc.unfreeze()
        if plan.started:
            report = report_for_run(plan.store, plan.run_id)
            plan.store.finish_run(plan.run_id, plan.status, headline(report))
            ended = run_metadata(plan.store.get_run(plan.run_id))
            report = report.model_copy(update={"metadata": ended})
    assert report is not None  # the run was created, or an exception went up
    return RunResult(plan.run_id, plan.status, report, plan.written, len(plan.done))


def run_suite(
    suite: Suite | str | Path,
    store: RunStore,
    *,
    selection: Selection | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """Run a suite's target over its (selected) cases and store the run."""
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    control = control or RunControl()
    options = options_for(suite, overrides or Overrides())
    full = suite.load_dataset()
    chosen = select(full, selection or Selection())
    target = suite.build_target()
    grader = suite.grader()
    now = datetime.now(UTC)
    metadata: dict[str, Any] = {**suite.settings.metadata, **control.metadata}
    if selection is not None and not selection.empty:
        metadata["selection"] = selection.describe()
        metadata["full_dataset_version"] = full.version
    config = redact(target.config())
    info = RunInfo(
        id=new_run_id(now),
        started_at=now,
        suite_path=str(suite.path.resolve()),
        suite=redact(suite.raw),
        dataset_name=chosen.name,
        dataset_version=chosen.version,
        target=config,
        target_hash=content_hash(target.config()),
        graders=[{"name": grader.name, "version": grader.version}],
        trials=options.trials,
        trial_policy=suite.settings.trial_policy or "per-trial",
        assay_version=__version__,
        git_commit=git_commit(suite.base_dir),
        packages=package_versions(),
        metadata=metadata,
    )
    trace = overrides.trace if overrides and overrides.trace is not None else suite.settings.trace
    plan = _Plan(store, info.id, chosen, target, grader, options, trace)
    return _run_plan(plan, control, info)


def resume_run(
    store: RunStore,
    run_id: str,
    *,
    suite: Suite | str | Path | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """Run only the case-trials a stored run has not recorded yet, into the same run."""
    info = store.get_run(run_id)
    if not isinstance(suite, Suite):
        where = suite if suite is not None else info.suite_path
        if where is None:
            raise AssayConfigError(f"run {info.id} has no suite path; give the suite file")
        suite = load_suite(where)
    overrides = overrides or Overrides()
    if overrides.trials is not None and overrides.trials != info.trials:
        raise AssayConfigError(
            f"--trials {overrides.trials}: run {info.id} was started with {info.trials} trials; "
            "a resumed run keeps its trial count"
        )
    options = replace(options_for(suite, overrides), trials=info.trials)
    target = suite.build_target()
    if content_hash(target.config()) != info.target_hash:
        raise AssayConfigError(
            f"the target in {suite.path} has changed since run {info.id} started "
            "(its configuration hash differs); start a new run instead of resuming"
        )
    trace = overrides.trace if overrides.trace is not None else suite.settings.trace
    plan = _Plan(
        store,
        info.id,
        store.load_dataset(info.id),
        target,
        suite.grader(),
        options,
        trace,
        store.recorded_keys(info.id),
    )
    return _run_plan(plan, control or RunControl(), None)
