"""The run progress display: done/total, errors, throughput and ETA; plain lines off a
terminal (no control codes in CI logs), a live bar on one."""

from __future__ import annotations

import io

from rich.console import Console

from assay.cli._progress import RichProgress, duration
from assay.outcomes import Abstain, Error, Record


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _record(i: int, error: bool = False) -> Record:
    outcome = Error(error_class="timeout", message="slow") if error else Abstain()
    return Record(case_id=f"C{i}", outcome=outcome)


def test_off_a_terminal_it_writes_plain_periodic_lines_and_a_summary() -> None:
    out = io.StringIO()
    clock = Clock()
    progress = RichProgress("suite.yaml", console=Console(file=out), clock=clock, every_s=10)
    progress.start(total=40, done=0)
    for i in range(40):
        clock.now += 1  # one case-trial a second
        progress.advance(_record(i, error=i % 10 == 0))
    progress.stop()
    lines = out.getvalue().splitlines()
    assert lines[0] == "suite.yaml: 10/40 case-trials · 1 error · 1.0/s · ETA 30 s"
    assert lines[2] == "suite.yaml: 30/40 case-trials · 3 errors · 1.0/s · ETA 10 s"
    assert lines[-1] == "suite.yaml: 40/40 case-trials · 4 errors · 1.0/s · 40 s elapsed"
    assert len(lines) == 4
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()


def test_a_resumed_run_counts_throughput_from_what_this_process_ran() -> None:
    out = io.StringIO()
    clock = Clock()
    progress = RichProgress("run r1", console=Console(file=out), clock=clock)
    progress.start(total=10, done=6)
    clock.now += 2
    for i in range(4):
        progress.advance(_record(i))
    progress.stop()
    assert out.getvalue() == "run r1: 10/10 case-trials · 0 errors · 2.0/s · 2.0 s elapsed\n"


def test_on_a_terminal_it_draws_a_bar_with_errors_rate_and_eta() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=140, color_system=None)
    progress = RichProgress("suite.yaml", console=console, live=True)
    progress.start(total=3, done=0)
    for i in range(3):
        progress.advance(_record(i, error=i == 1))
    progress.stop()
    shown = out.getvalue()
    assert "suite.yaml" in shown and "3/3" in shown
    assert "1 error ·" in shown and "/s" in shown and "ETA" in shown


def test_durations_read_naturally() -> None:
    assert [duration(s) for s in (0.4, 42, 185, 3720)] == [
        "0.4 s",
        "42 s",
        "3 min 05 s",
        "1 h 02 min",
    ]


def test_a_forced_terminal_that_is_a_pipe_gets_plain_lines() -> None:
    out = io.StringIO()  # what FORCE_COLOR=1 does to a CI log: rich calls it a terminal
    console = Console(file=out, force_terminal=True)
    progress = RichProgress("suite.yaml", console=console)
    progress.start(total=1, done=0)
    progress.advance(_record(0))
    progress.stop()
    assert out.getvalue().startswith("suite.yaml: 1/1 case-trials · 0 errors")
    assert "\x1b" not in out.getvalue()
