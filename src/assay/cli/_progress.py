"""The run progress display on stderr: done/total, errors so far, throughput and ETA.

On a terminal it is a live rich bar. Anywhere else (a CI log, a file) it is plain lines
without control codes: one every ``every_s`` seconds while the run goes, and a summary
at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from assay.outcomes import Record

if TYPE_CHECKING:
    from rich.console import Console


def duration(seconds: float) -> str:
    """``4.2 s``, ``42 s``, ``3 min 05 s`` or ``1 h 02 min``."""
    if seconds < 9.95:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class RichProgress:
    """Progress of one run, written to stderr (or ``console``)."""

    def __init__(
        self,
        label: str,
        *,
        console: Console | None = None,
        clock: Callable[[], float] = time.monotonic,
        every_s: float = 10.0,
        live: bool | None = None,
    ) -> None:
        from assay.cli._terminal import raw_stream

        # Its own redraws (cursor moves) must reach the terminal; the label and counts are
        # escaped by the console itself. Made only for a terminal: plain lines need none.
        self.file: Any = console.file if console is not None else raw_stream("stderr")
        self._console = console
        # A live bar only on a real interactive terminal: FORCE_COLOR (set in many CI
        # configurations) makes rich treat a pipe as a terminal, which would fill the log
        # with redraws.
        self.live = live if live is not None else self._interactive()
        self.label = label
        self.clock = clock
        self.every_s = every_s
        self.errors = 0
        self.done = 0
        self.total = 0
        self._bar: Any = None
        self._task: Any = None
        self._started = 0.0
        self._last_line = 0.0
        self._initial = 0

    def start(self, total: int, done: int) -> None:
        self.total, self.done, self._initial = total, done, done
        self._started = self._last_line = self.clock()
        if self.live:
            self._start_bar()

    @property
    def console(self) -> Console:
        """The rich console the live bar draws on."""
        if self._console is None:
            from assay.render import SafeConsole

            self._console = SafeConsole(file=self.file)
        return self._console

    def _interactive(self) -> bool:
        isatty = getattr(self.file, "isatty", None)
        return bool(isatty is not None and isatty() and self.console.is_interactive)

    def _start_bar(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("· {task.fields[errors]} · {task.fields[rate]}/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._task = self._bar.add_task(
            self.label, total=self.total, completed=self.done, errors=_errors(0), rate="–"
        )
        self._bar.start()

    def rate(self) -> float:
        """Case-trials finished per second in this process (resumed ones not counted)."""
        return (self.done - self._initial) / max(self.clock() - self._started, 1e-9)

    def line(self, final: bool = False) -> str:
        """The plain status line: done/total, errors, throughput, then ETA or elapsed."""
        rate = self.rate()
        if final:
            tail = f"{duration(self.clock() - self._started)} elapsed"
        elif rate > 0:
            tail = f"ETA {duration((self.total - self.done) / rate)}"
        else:
            tail = "ETA –"
        return (
            f"{self.label}: {self.done}/{self.total} case-trials · {_errors(self.errors)} · "
            f"{rate:.1f}/s · {tail}\n"
        )

    def advance(self, record: Record) -> None:
        self.done += 1
        if record.outcome.kind == "error":
            self.errors += 1
        if self._bar is not None:
            rate = f"{self.rate():.1f}"
            self._bar.update(self._task, advance=1, errors=_errors(self.errors), rate=rate)
        elif self.clock() - self._last_line >= self.every_s and self.done < self.total:
            self._last_line = self.clock()
            self._write(self.line())

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            return
        self._write(self.line(final=True))

    def _write(self, text: str) -> None:
        self.file.write(text)
        self.file.flush()


def _errors(count: int) -> str:
    return "1 error" if count == 1 else f"{count} errors"
