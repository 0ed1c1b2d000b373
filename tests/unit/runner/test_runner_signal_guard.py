"""Ctrl-C during a run: the first asks the run to stop, the second stops it at once, and
one that comes while the final status is written waits until it is written."""

from __future__ import annotations

import os
import signal

import pytest

from assay.runner._guard import Interrupted, SignalGuard


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def test_the_first_signal_stops_the_run_and_the_second_interrupts_at_once() -> None:
    asked: list[str] = []
    with SignalGuard() as guard:
        guard.on_stop = lambda: asked.append("stop")
        _ctrl_c()
        assert asked == ["stop"]
        with pytest.raises(Interrupted, match="twice"):
            _ctrl_c()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def test_a_signal_while_the_status_is_written_waits_for_the_write() -> None:
    written: list[str] = []
    guard = SignalGuard()
    with guard, pytest.raises(Interrupted, match="being recorded"), guard.deferred():
        _ctrl_c()
        written.append("interrupted")  # the write this protects still happens
    assert written == ["interrupted"]


def test_a_sigterm_is_handled_like_ctrl_c() -> None:
    asked: list[str] = []
    with SignalGuard() as guard:
        guard.on_stop = lambda: asked.append("stop")
        os.kill(os.getpid(), signal.SIGTERM)
    assert asked == ["stop"]


def test_a_second_signal_raises_from_the_loop_when_the_loop_is_running() -> None:
    forced: list[str] = []
    with SignalGuard() as guard:
        guard.on_stop = lambda: None
        guard.on_force = lambda: forced.append("raise from a loop callback")
        guard.responsive = lambda: True
        _ctrl_c()
        _ctrl_c()  # not raised here, wherever the signal landed
        assert forced == ["raise from a loop callback"]
        guard.responsive = lambda: False  # a blocked loop: raised right where it lands
        with pytest.raises(Interrupted, match="twice"):
            _ctrl_c()
