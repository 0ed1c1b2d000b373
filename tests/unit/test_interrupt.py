"""Ctrl-C outside a run (the CLI's handler): Python's KeyboardInterrupt, except that one
landing inside a finalizer comes again after it instead of being printed and dropped."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from assay._interrupt import install, interrupt


@pytest.fixture
def python_handler() -> Iterator[None]:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _python_call() -> None:
    return None


def test_install_replaces_only_pythons_own_handler(python_handler: None) -> None:
    install()
    assert signal.getsignal(signal.SIGINT) is interrupt
    mine = signal.signal(signal.SIGINT, lambda *_: None)
    custom = signal.getsignal(signal.SIGINT)
    install()  # somebody else's handler stays
    assert signal.getsignal(signal.SIGINT) is custom
    signal.signal(signal.SIGINT, mine)


def test_ctrl_c_outside_a_finalizer_is_a_keyboard_interrupt(python_handler: None) -> None:
    install()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        _python_call()


def test_ctrl_c_in_a_finalizer_comes_again_after_it(python_handler: None) -> None:
    finished: list[str] = []

    class Finalized:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            _python_call()  # where the signal is handled: still inside the finalizer
            finished.append("the finalizer ran to its end")

    install()
    with pytest.raises(KeyboardInterrupt):
        Finalized()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            time.sleep(0.01)
    assert finished == ["the finalizer ran to its end"]
