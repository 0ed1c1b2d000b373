"""Stopping a run cleanly: Ctrl-C (once to stop, twice to stop at once), a finish that a
Ctrl-C cannot cut short, and a watchdog for an async target that blocks the event loop.

A blocked event loop disables the per-call timeout and Ctrl-C alike (both are handled by
the loop). The watchdog is a thread that expects the loop to tick and knows which target
calls are in flight. When the loop stops ticking inside one of them:

- past that call's deadline, the watchdog interrupts the call: it ends as a ``timeout``
  error saying that the target blocked the event loop, and the run goes on;
- once a stop was asked (Ctrl-C, SIGTERM), it interrupts the call and the run stops as
  ``interrupted``, saying on stderr which target blocked;
- when the loop has not ticked for longer than the call timeout plus a grace (blocked
  outside a call, or by a target that swallowed the interruption), it stops the run as
  ``interrupted`` wherever the loop's thread is.

The loop's thread is interrupted by ``SIGUSR1`` sent to it, whose handler raises: a C
call blocked in the kernel (``time.sleep``, a socket read, a lock's acquire) returns
early to run the handler. Python runs signal handlers in the main thread only, so this
works when the loop runs there (``assay run``, a script). Elsewhere (the library called
from a worker thread) an exception set asynchronously in the loop's thread is all there
is: raised at the blocked code's next Python instruction, so it stops a long computation
but not a blocked C call, and the watchdog says so. All of the platform's signal
plumbing lives in this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
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
STALLED_S = 0.3  # a loop that has not ticked for this long is blocked (or very busy)
STOP_WAIT_S = 0.5  # how long a stop waits for a blocked loop before interrupting it
KICK_UNANSWERED_S = 2.0  # a blocked call that ignores the signal this long ignores it for good

# Hooked only while a run executes, in the main thread (see ``_Kick``).
_KICK_SIGNAL: int | None = (
    getattr(signal, "SIGUSR1", None) if hasattr(signal, "pthread_kill") else None
)

_BLOCKING = "time.sleep, blocking I/O or a long computation inside `async def`"
_FIX = "make the target a plain function (it then runs in a thread) or await non-blocking calls"


class Interrupted(KeyboardInterrupt):
    """The user asked the run to stop at once (a second Ctrl-C)."""


class LoopBlocked(Interrupted):
    """The event loop did not run for longer than a call may take: a target blocked it."""


class CallBlocked(BaseException):
    """Raised inside a target's call that blocked the event loop past the call's deadline
    (a ``BaseException``, so that the target's own ``except Exception`` lets it through)."""


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
        self.stop_asked_at: float | None = None  # time.monotonic() of the first signal
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
        if self.on_stop is not None:
            if not self.stopping:
                self.stopping = True
                self.stop_asked_at = time.monotonic()
                self.on_stop()  # a loop blocked by a target: the watchdog interrupts it
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


class _Kick:
    """``SIGUSR1`` sent to the main thread to run ``Watchdog.kicked`` there; hooked while
    a watchdog of a loop in the main thread runs, and given back after."""

    def __init__(self) -> None:
        self._dogs: list[Watchdog] = []
        self._previous: Any = None
        self._lock = threading.Lock()
        self._unanswered = False  # a kick was sent and its handler has not run yet

    def attach(self, dog: Watchdog) -> bool:
        """Let ``dog`` kick the main thread (False: this thread or platform cannot)."""
        if _KICK_SIGNAL is None or not _main_thread():
            return False
        if not self._dogs:
            if signal.getsignal(_KICK_SIGNAL) is None:  # set outside Python: kept as it is
                return False
            self._previous = signal.signal(_KICK_SIGNAL, self._handle)
        with self._lock:
            self._dogs.append(dog)
        return True

    def detach(self, dog: Watchdog) -> None:
        """Stop ``dog`` kicking; give the signal's handler back once no watchdog is left."""
        with self._lock:  # no kick is sent for ``dog`` after this
            self._dogs.remove(dog)
            last = not self._dogs
        if not last or _KICK_SIGNAL is None:
            return
        # A kick already sent runs this handler (doing nothing now) before the previous
        # handler is back: under the default one, SIGUSR1 would end the process.
        end = time.monotonic() + 1.0
        while self._unanswered and time.monotonic() < end:
            time.sleep(0.001)
        signal.signal(_KICK_SIGNAL, self._previous)

    def send(self, dog: Watchdog) -> None:
        """Interrupt the main thread (from the watchdog's thread), unless ``dog`` is gone."""
        assert _KICK_SIGNAL is not None
        with self._lock:
            if dog in self._dogs:
                signal.pthread_kill(threading.main_thread().ident or 0, _KICK_SIGNAL)
                self._unanswered = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        ours, self._unanswered = self._unanswered, False
        for dog in list(self._dogs):
            dog.kicked(frame)  # raises to interrupt the blocked code
        if not ours and callable(self._previous):  # the application's own SIGUSR1
            self._previous(signum, frame)


_KICKER = _Kick()
_WATCHING: contextvars.ContextVar[Watchdog | None] = contextvars.ContextVar(
    "assay_watchdog", default=None
)


def watching() -> Watchdog | None:
    """The watchdog of the run this task belongs to, if any."""
    return _WATCHING.get()


def _raise_in_thread(thread_id: int, exc: type[BaseException]) -> None:
    # Without signal hooks, an exception set asynchronously in the loop's thread is the
    # only way in; it is raised at the blocked code's next Python instruction.
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc))


def _raise_interrupted() -> None:
    raise Interrupted("interrupted twice: stopping at once")


class _Call:
    """A target call in flight: when its deadline passes, and whether it was interrupted."""

    __slots__ = ("deadline", "interrupted", "timeout_s")

    def __init__(self, timeout_s: float) -> None:
        self.deadline = time.monotonic() + timeout_s
        self.timeout_s = timeout_s
        self.interrupted = False


class Watchdog:
    """Notices an event loop blocked by a target's call, and interrupts it (module doc):
    the call past its deadline, the run on a stop asked, or after ``limit_s`` seconds."""

    def __init__(
        self, guard: SignalGuard, limit_s: float, say: Callable[[str], None], target: str = ""
    ) -> None:
        self.guard, self.limit_s, self.say = guard, limit_s, say
        self.target = f"the target {target}" if target else "the target"
        self.last = time.monotonic()
        self.fired = False
        self._done = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._loop_thread = 0
        self._calls: dict[FrameType, _Call] = {}
        # What the next kick is for: ("call" | "stop" | "run", the call's frame, message).
        self._reason: tuple[str, FrameType | None, str] | None = None
        self._kicked_at = 0.0
        self._kicks = False
        self._token: contextvars.Token[Watchdog | None] | None = None
        self._said: set[str] = set()

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
        self._kicks = _KICKER.attach(self)
        self._token = _WATCHING.set(self)
        threading.Thread(target=self._watch, name="assay-watchdog", daemon=True).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.guard.on_force, self.guard.responsive = None, lambda: False
        self._done.set()
        if self._kicks:
            _KICKER.detach(self)  # no kick lands after this
        if self._token is not None:
            _WATCHING.reset(self._token)
        if self._handle is not None:
            self._handle.cancel()

    def enter_call(self, frame: FrameType, timeout_s: float) -> None:
        """A target call starts in ``frame`` (the frame awaiting it), due in ``timeout_s``."""
        self._calls[frame] = _Call(timeout_s)

    def leave_call(self, frame: FrameType) -> None:
        """The call in ``frame`` has ended."""
        self._calls.pop(frame, None)

    def _call_frame(self, frame: FrameType | None) -> FrameType | None:
        """The frame of the target call that ``frame`` runs inside, if any."""
        while frame is not None:
            if frame in self._calls:
                return frame
            frame = frame.f_back
        return None

    def kicked(self, frame: FrameType | None) -> None:
        """In the main thread, where the kick landed: raise what the watchdog asked for."""
        reason = self._reason
        if reason is None:
            return
        if in_finalizer(frame):
            # An exception raised in a finalizer is printed and dropped: kick again later.
            again = threading.Timer(0.01, _KICKER.send, (self,))
            again.daemon = True
            again.start()
            return
        self._reason = None
        kind, call_frame, message = reason
        if kind == "run":
            raise LoopBlocked(message)
        if call_frame is None or frame is call_frame or self._call_frame(frame) is not call_frame:
            return  # the target's code is not running (any more): nothing to interrupt
        if kind == "stop":
            raise LoopBlocked(message)
        raise CallBlocked(message)

    def _say_once(self, key: str, message: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self.say(message)

    def _blocking_call(self) -> tuple[FrameType, _Call] | None:
        """The target call the loop's thread is running now, if any."""
        frame = self._call_frame(sys._current_frames().get(self._loop_thread))
        if frame is None:
            return None
        call = self._calls.get(frame)
        return None if call is None else (frame, call)

    def _watch(self) -> None:
        while not self._done.wait(TICK_S):
            now = time.monotonic()
            stalled = now - self.last
            if stalled < STALLED_S:
                continue
            if stalled > self.limit_s:
                self._stop_the_run(stalled)
                return
            if self._reason is not None:
                if now - self._kicked_at > KICK_UNANSWERED_S:
                    self._say_once(
                        "unanswered",
                        f"{self.target} is blocked in code that does not return to Python "
                        "(a C call that ignores signals): it cannot be interrupted",
                    )
                continue
            found = self._blocking_call()
            if found is not None:
                self._interrupt_call(*found, now)

    def _interrupt_call(self, frame: FrameType, call: _Call, now: float) -> None:
        asked = self.guard.stop_asked_at
        if asked is not None and self.last < asked and now - asked > STOP_WAIT_S:
            message = (
                f"{self.target} has blocked the event loop for {now - self.last:.1f} s "
                f"({_BLOCKING}): its call is abandoned and the run stops here; {_FIX}"
            )
            self._say_once("stop", message)
            self._kick(("stop", frame, message), now)
            return
        if call.interrupted or not (self.last < call.deadline < now - STALLED_S):
            return
        call.interrupted = True
        if not self._kicks:
            self._say_once(
                "cannot",
                f"{self.target} has blocked the event loop past its {call.timeout_s:g} s "
                f"timeout ({_BLOCKING}); assay cannot interrupt the call: the event loop "
                "does not run in the main thread (or SIGUSR1 is not Python's to handle). "
                f"The run stops after {self.limit_s:g} s of blocking, or never if the call "
                f"is blocked in C code (time.sleep, a socket read, a lock); {_FIX}",
            )
            return
        self._say_once(
            "timeout",
            f"{self.target} blocked the event loop past its {call.timeout_s:g} s timeout "
            f"({_BLOCKING}): such calls are interrupted and recorded as timeouts; {_FIX}",
        )
        self._kick(("call", frame, "the target blocked the event loop and was interrupted"), now)

    def _kick(self, reason: tuple[str, FrameType | None, str], now: float) -> None:
        self._reason, self._kicked_at = reason, now
        _KICKER.send(self)

    def _stop_the_run(self, stalled: float) -> None:
        self.fired = True
        message = (
            f"the event loop was blocked for {stalled:.0f} s, longer than a call may take: "
            f"{self.target} is running blocking code ({_BLOCKING}); the run stops here. "
            f"{_FIX[0].upper()}{_FIX[1:]}"
        )
        self.say(message)
        if self._kicks:
            self._kick(("run", None, message), time.monotonic())
        else:
            _raise_in_thread(self._loop_thread, LoopBlocked)


def say_on_stderr(message: str) -> None:
    """Print a runner message on stderr (from any thread)."""
    sys.stderr.write(f"assay: {message}\n")
    sys.stderr.flush()
