"""Ctrl-C that never lands inside a finalizer.

Python reports an exception raised inside a finalizer (``__del__``) or a weakref callback
(a ``WeakSet`` dropping a collected task) as a traceback on stderr and then drops it: a
Ctrl-C landing there would print a traceback and be lost. A handler that finds itself
there delivers the signal again a moment later, once that code has returned.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_FINALIZER_FILES = ("_weakrefset.py", "weakref.py")
_FRAMES_LOOKED_AT = 8


def in_finalizer(frame: FrameType | None) -> bool:
    """Whether ``frame`` (or one of the few frames that called it) runs a ``__del__`` or a
    weakref callback: code whose exceptions Python reports as unraisable and drops."""
    for _ in range(_FRAMES_LOOKED_AT):
        if frame is None:
            return False
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.endswith(_FINALIZER_FILES):
            return True
        frame = frame.f_back
    return False


def deliver_again(signum: int, after_s: float = 0.01) -> None:
    """Send ``signum`` to the main thread again after ``after_s`` seconds."""
    main = threading.main_thread().ident or 0
    timer = threading.Timer(after_s, signal.pthread_kill, (main, signum))
    timer.daemon = True
    timer.start()


def interrupt(signum: int, frame: FrameType | None) -> None:
    """Python's own SIGINT handler (``KeyboardInterrupt``), but never inside a finalizer."""
    if in_finalizer(frame):
        deliver_again(signum)
        return
    raise KeyboardInterrupt


def install() -> None:
    """Use ``interrupt`` for SIGINT when Python's own handler is the one in place (in the
    main thread of a process assay owns)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupt)
