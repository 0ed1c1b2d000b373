"""Where assay's CPU goes per case, by phase, without a profiler's overhead.

Runs ``drive_assay.run`` in this process with a few of assay's functions wrapped to add up
the process CPU time spent inside them (nested phases are not subtracted from their
parents), and the CPU time of Python's cycle collections wherever they happen. A function
that no longer exists is reported as such, never guessed.

    .venv/bin/python bench/phases.py --latency-ms 0 -n 2000
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import inspect
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import drive_assay
from _mockproc import mock_server

# (label, where): the phases worth separating, outermost first; ``where`` lists the places
# the function has lived ("module:attribute.path"), the first found is wrapped.
PHASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("whole run (run_suite)", ("assay.runner:run_suite",)),
    ("one case-trial (run_item)", ("assay.runner._execute:run_item",)),
    ("  target call (OpenAITarget.run)", ("assay.targets.openai:OpenAITarget.run",)),
    ("  grading", ("assay.runner._execute:judge_record", "assay.runner._execute:_grade")),
    (
        "  span start",
        (
            "assay.tracing._store_tracer:StoreTracer.start_span",
            "opentelemetry.sdk.trace:Tracer.start_span",
        ),
    ),
    (
        "  span end + export",
        (
            "assay.tracing._store_tracer:StoreTracer.ended",
            "assay.tracing._export:StoreSpanProcessor.on_end",
        ),
    ),
    (
        "storing records (Writer.add)",
        ("assay.runner._plan:_Writer.add", "assay.runner._run:_Writer.add"),
    ),
    (
        "  RunStore.add_results (records and judgments)",
        ("assay.store._store:RunStore.add_results", "assay.store._store:RunStore.add_records"),
    ),
    (
        "  RunStore.add_span_rows (spans)",
        ("assay.store._store:RunStore.add_span_rows", "assay.store._store:RunStore.add_spans"),
    ),
    ("report from the store (report_for_run)", ("assay.runner._run:report_for_run",)),
    ("RunStore.create_run", ("assay.store._store:RunStore.create_run",)),
    ("loading the dataset", ("assay.load._suite:Suite.load_dataset",)),
)


@dataclass(frozen=True)
class Phase:
    """CPU seconds spent in one phase over a run, how often it was entered, and the wall
    clock (``perf_counter``) when it was first entered and last left."""

    label: str
    cpu_s: float | None
    calls: int
    first: float | None = None
    last: float | None = None


@dataclass
class Tally:
    """What the wrapped functions add up, by phase label."""

    spent: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    calls: Counter[str] = field(default_factory=Counter)
    first: dict[str, float] = field(default_factory=dict)
    last: dict[str, float] = field(default_factory=dict)

    def enter(self, label: str) -> None:
        self.calls[label] += 1
        self.first.setdefault(label, time.perf_counter())

    def leave(self, label: str) -> None:
        self.last[label] = time.perf_counter()


class _Timed:
    """Awaits a coroutine, adding up the process CPU time of its own steps only."""

    def __init__(self, coro: Any, account: Callable[[float], None]) -> None:
        self.coro, self.account = coro, account

    def __await__(self) -> Generator[Any, Any, Any]:
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            start = time.process_time()
            try:
                yielded = self.coro.throw(thrown) if thrown else self.coro.send(sent)
            except StopIteration as stop:
                return stop.value
            finally:
                self.account(time.process_time() - start)
            try:
                sent, thrown = (yield yielded), None
            except BaseException as err:  # cancellation goes on into the coroutine
                sent, thrown = None, err


def _wrap(owner: Any, name: str, label: str, tally: Tally) -> None:
    original = getattr(owner, name)

    def account(seconds: float) -> None:
        tally.spent[label] += seconds

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            tally.enter(label)
            try:
                return await _Timed(original(*args, **kwargs), account)
            finally:
                tally.leave(label)

        setattr(owner, name, timed_async)
        return

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        tally.enter(label)
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            account(time.process_time() - start)
            tally.leave(label)

    setattr(owner, name, timed)


def instrument() -> tuple[Tally, list[str]]:
    """Wrap every phase that exists; return the tally and the labels not found."""
    tally = Tally()
    missing: list[str] = []
    for label, places in PHASES:
        found = next(filter(None, (_locate(place) for place in places)), None)
        if found is None:
            missing.append(label)
            continue
        _wrap(*found, label, tally)
    return tally, missing


def _locate(place: str) -> tuple[Any, str] | None:
    """The object owning the function at ``module:attr.path`` and its name, if it exists."""
    module_name, path = place.split(":")
    try:
        owner: Any = importlib.import_module(module_name)
        *parents, name = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        getattr(owner, name)
    except (ImportError, AttributeError):
        return None
    return owner, name


COLLECTOR = "cycle collector (gc), anywhere in run_suite"


@contextmanager
def collections(tally: Tally) -> Iterator[None]:
    """Add up the CPU time of Python's cycle collections while the run (the first phase)
    is under way (``gc`` callbacks) as the ``COLLECTOR`` phase, its calls the collections."""
    run = PHASES[0][0]
    started: list[float] = []

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if run not in tally.first or run in tally.last:  # not inside the run
            started.clear()
        elif phase == "start":
            started.append(time.process_time())
        elif started:
            tally.spent[COLLECTOR] += time.process_time() - started.pop()
            tally.calls[COLLECTOR] += 1

    gc.callbacks.append(on_collection)
    try:
        yield
    finally:
        gc.callbacks.remove(on_collection)


def measure(
    latency_ms: float, n: int, c: int, trace: bool = True
) -> tuple[dict[str, Any], list[Phase]]:
    """One instrumented run: the driver's measure and the phases."""
    tally, missing = instrument()
    with mock_server("--latency-ms", f"{latency_ms:g}") as base_url, collections(tally):
        result = drive_assay.run(base_url, n, c, trace)
    labels = [label for label, _ in PHASES] + [COLLECTOR]
    phases = [
        Phase(
            label,
            None if label in missing else tally.spent.get(label, 0.0),
            tally.calls.get(label, 0),
            tally.first.get(label),
            tally.last.get(label),
        )
        for label in labels
    ]
    return result, phases


def _timeline(phases: list[Phase]) -> str:
    """Wall time before the first case-trial starts, while they run, and after the last."""
    by_label = {p.label: p for p in phases}
    run, item = by_label[PHASES[0][0]], by_label[PHASES[1][0]]
    if None in (run.first, run.last, item.first, item.last):
        return "Wall-clock timeline: not available in this version."
    assert run.first and run.last and item.first and item.last
    return (
        f"Wall clock inside run_suite: {item.first - run.first:.2f} s before the first "
        f"case-trial starts, {item.last - item.first:.2f} s from the first start to the last "
        f"case-trial done, {run.last - item.last:.2f} s after it (flush, report, finish)."
    )


def describe(result: dict[str, Any], phases: list[Phase]) -> list[str]:
    """Markdown lines: the timeline and the CPU ms per case of each phase."""
    n = result["cases"]
    lines = [
        f"Total: {1000 * result['cpu_s'] / n:.3f} ms CPU per case "
        f"({result['cpu_s']:.2f} s for {n} cases, wall {result['wall_s']:.2f} s). "
        + _timeline(phases),
        "",
        "| phase | CPU ms per case | CPU s in all | calls |",
        "|---|---:|---:|---:|",
    ]
    for phase in phases:
        if phase.cpu_s is None:
            lines.append(f"| {phase.label} | not found in this version | | |")
            continue
        lines.append(
            f"| {phase.label} | {1000 * phase.cpu_s / n:.3f} | {phase.cpu_s:.3f} | {phase.calls} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    """Measure the phases of one run and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=100)
    parser.add_argument("--no-trace", action="store_true")
    args = parser.parse_args(argv)
    result, phases = measure(args.latency_ms, args.n, args.c, not args.no_trace)
    print("\n".join(describe(result, phases)))


if __name__ == "__main__":
    main()
