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


def test_a_signal_after_the_work_waits_until_the_end_is_recorded() -> None:
    written: list[str] = []
    with SignalGuard() as guard:
        guard.on_stop = lambda: None
        _ctrl_c()  # the run stops taking calls
        guard.on_stop = None
        guard.start_recording()
        _ctrl_c()  # lands while what finished is written: held, not raised inside the write
        written.append("records")
        with guard.deferred():
            written.append("final status")  # not raised at this block's end either
        written.append("headline")
        with pytest.raises(Interrupted, match="being recorded"):
            guard.end_recording()
    assert written == ["records", "final status", "headline"]


def test_one_more_signal_while_the_end_is_recorded_stops_at_once() -> None:
    with SignalGuard() as guard:
        guard.start_recording()
        _ctrl_c()  # held
        with pytest.raises(Interrupted):  # a clean-up that hangs can still be stopped
            _ctrl_c()


def test_nothing_is_raised_when_the_end_is_recorded_undisturbed() -> None:
    with SignalGuard() as guard:
        guard.start_recording()
        with guard.deferred():
            pass
        guard.end_recording()


def _python_call() -> None:
    return None


def test_a_signal_landing_in_a_finalizer_comes_again_after_it() -> None:
    """Python reports an exception raised inside a finalizer (``__del__``, a WeakSet's
    callback) as a traceback on stderr and drops it: the stop must not be lost that way."""
    import time

    finished: list[str] = []

    class Finalized:
        def __del__(self) -> None:
            _ctrl_c()  # the second Ctrl-C lands inside the finalizer: handled at the
            _python_call()  # first Python call after it, still inside
            finished.append("the finalizer ran to its end")

    with SignalGuard() as guard:
        guard.on_stop = lambda: None
        _ctrl_c()  # the run stops taking calls
        with pytest.raises(Interrupted, match="twice"):
            Finalized()
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.01)  # the signal comes again, outside the finalizer
    assert finished == ["the finalizer ran to its end"]


def test_frames_of_finalizers_are_recognised() -> None:
    import sys

    from assay._interrupt import in_finalizer

    seen: list[bool] = []

    class Finalized:
        def __del__(self) -> None:
            seen.append(in_finalizer(sys._getframe()))

    Finalized()
    assert seen == [True]
    assert not in_finalizer(sys._getframe())
    assert not in_finalizer(None)
