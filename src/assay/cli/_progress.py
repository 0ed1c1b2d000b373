"""The run progress bar on stderr: done/total, errors so far, throughput and ETA."""

from __future__ import annotations

import sys
import time
from typing import Any

from assay.outcomes import Record


class RichProgress:
    """A rich progress bar on stderr (a one-line summary instead when stderr is no terminal)."""

    def __init__(self, label: str) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.label = label
        self.errors = 0
        self.done = 0
        self.total = 0
        self._bar: Any = None
        self._task: Any = None
        self._started = 0.0
        self._initial = 0

    def start(self, total: int, done: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.total, self.done, self._initial = total, done, done
        self._started = time.monotonic()
        if not self.console.is_terminal:
            return
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("· {task.fields[errors]} errors · {task.fields[rate]}/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._task = self._bar.add_task(self.label, total=total, completed=done, errors=0, rate="–")
        self._bar.start()

    def advance(self, record: Record) -> None:
        self.done += 1
        if record.outcome.kind == "error":
            self.errors += 1
        if self._bar is not None:
            elapsed = max(time.monotonic() - self._started, 1e-9)
            rate = f"{(self.done - self._initial) / elapsed:.1f}"
            self._bar.update(self._task, advance=1, errors=self.errors, rate=rate)

    def stop(self) -> None:
        elapsed = time.monotonic() - self._started
        if self._bar is not None:
            self._bar.stop()
            return
        sys.stderr.write(
            f"{self.label}: {self.done}/{self.total} case-trials, {self.errors} errors, "
            f"{elapsed:.1f} s\n"
        )
