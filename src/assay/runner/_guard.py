"""Stopping a run cleanly: Ctrl-C (once to stop, twice to stop at once), a finish that a
Ctrl-C cannot cut short, and a watchdog for an async target that blocks the event loop.

A blocked event loop disables the per-call timeout and Ctrl-C alike (both are handled by
the loop). The watchdog is a thread that expects the loop to tick; when it has not ticked
for longer than the call timeout plus a grace, it says so on stderr and interrupts the
loop's thread, so the run stops as ``interrupted`` with what it finished stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from assay._interrupt import deliver_again, in_finalizer

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
TICK_S = 0.1
RESPONSIVE_S = 1.0  # a loop that ticked this recently is running its callbacks


class Interrupted(KeyboardInterrupt):
    """The user asked the run to stop at once (a second Ctrl-C)."""


class LoopBlocked(Interrupted):
    """The event loop did not run for longer than a call may take: a target blocked it."""


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class SignalGuard:
    """SIGINT/SIGTERM handling for a whole run, from its start to its recorded end.

    The first signal calls ``on_stop`` (the run stops taking new calls and stores what
    finished); another one raises ``Interrupted`` at once: from a callback of the event
    loop when the loop is running callbacks, else right where the signal landed (a
    blocked loop). Inside ``deferred()`` signals
    are held back until the block ends, so the run's final status is always written.
    Without the main thread (signals cannot be hooked there), it does nothing.
    """

    def __init__(self) -> None:
        self.on_stop: Callable[[], None] | None = None
        # Set while the loop runs the work: raise ``Interrupted`` from one of the loop's
        # own callbacks, and whether the loop is running callbacks at all.
        self.on_force: Callable[[], None] | None = None
        self.responsive: Callable[[], bool] = lambda: False
        self.stopping = False
        self.blocked_message: str | None = None
        self._held: list[int] = []
        self._holding = False
        self._recording = False
        self._previous: dict[int, Any] = {}

    @property
    def hooked(self) -> bool:
        return bool(self._previous)

    def __enter__(self) -> SignalGuard:
        if _main_thread():
            for sig in _SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._holding or (self._recording and not self._held):
            self._held.append(signum)
            return
        if self.blocked_message is None and self.on_stop is not None:
            if not self.stopping:
                self.stopping = True
                self.on_stop()
                return
            if self.on_force is not None and self.responsive():
                # Raised between two of the loop's callbacks rather than wherever this
                # signal landed (inside a database call, a finalizer), so the stop is orderly.
                self.on_force()
                return
        if in_finalizer(frame):
            # Python prints an exception raised in a finalizer or a weakref callback as a
            # traceback and drops it: the signal comes again once that code has returned.
            deliver_again(signum)
            return
        if self.blocked_message is not None:
            raise LoopBlocked(self.blocked_message)
        if self.on_stop is None:
            raise Interrupted("interrupted")
        raise Interrupted("interrupted twice: stopping at once")

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Hold signals back while the block runs; raise ``Interrupted`` after it if one came
        (once the recording ends, when the block is part of it)."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
        self._raise_held()

    def start_recording(self) -> None:
        """The work has ended: hold signals back until ``end_recording()``."""
        self._recording = True

    def end_recording(self) -> None:
        """The run's end is recorded: stop holding signals back, and raise ``Interrupted``
        if one came meanwhile."""
        self._recording = False
        self._raise_held()

    def _raise_held(self) -> None:
        if self._held and not self._recording:
            self._held = []
            raise Interrupted("interrupted while the run was being recorded")

    def block_detected(self, message: str) -> None:
        """Called by the watchdog (from its thread): interrupt the blocked loop's thread."""
        self.blocked_message = message
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)


def _raise_in_thread(thread_id: int, exc: type[BaseException]) -> None:
    # Without signal hooks, an exception set asynchronously in the loop's thread is the
    # only way in; it is raised at the blocked code's next Python instruction.
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc))


def _raise_interrupted() -> None:
    raise Interrupted("interrupted twice: stopping at once")


class Watchdog:
    """Notices an event loop that has not run for ``limit_s`` seconds (see module doc)."""

    def __init__(self, guard: SignalGuard, limit_s: float, say: Callable[[str], None]) -> None:
        self.guard, self.limit_s, self.say = guard, limit_s, say
        self.last = time.monotonic()
        self.fired = False
        self._done = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._loop_thread = 0

    def _tick(self) -> None:
        self.last = time.monotonic()
        assert self._loop is not None
        self._handle = self._loop.call_later(TICK_S, self._tick)

    async def __aenter__(self) -> Watchdog:
        loop = self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._tick()

        def force() -> None:
            loop.call_soon_threadsafe(_raise_interrupted)

        self.guard.on_force = force
        self.guard.responsive = lambda: time.monotonic() - self.last < RESPONSIVE_S
        threading.Thread(target=self._watch, name="assay-watchdog", daemon=True).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.guard.on_force, self.guard.responsive = None, lambda: False
        self._done.set()
        if self._handle is not None:
            self._handle.cancel()

    def _watch(self) -> None:
        while not self._done.wait(TICK_S):
            stalled = time.monotonic() - self.last
            if stalled <= self.limit_s:
                continue
            self.fired = True
            message = (
                f"the event loop was blocked for {stalled:.0f} s, longer than a call may take: "
                "an async target is running blocking code (time.sleep, blocking I/O or a "
                "long computation inside `async def`); the run stops here. Make the target "
                "a plain function (it then runs in a thread) or await non-blocking calls"
            )
            self.say(message)
            on_main = self._loop_thread == threading.main_thread().ident
            if self.guard.hooked and on_main and hasattr(signal, "pthread_kill"):
                self.guard.block_detected(message)
            else:
                _raise_in_thread(self._loop_thread, LoopBlocked)
            return


def say_on_stderr(message: str) -> None:
    """Print a runner message on stderr (from any thread)."""
    sys.stderr.write(f"assay: {message}\n")
    sys.stderr.flush()
