"""The command-line interface. ``main`` maps every ``AssayError`` to one paragraph, exit 2."""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

from assay._fast.modules import loaded

# Commands that read stored runs count case-trials with numpy and never multiply matrices:
# the thread pool OpenBLAS starts when numpy is imported would only spin, about 70 ms of a
# second core's time. Not for commands that start a target's or a judge's process (they
# would inherit the setting), nor over a value the user set.
ONE_BLAS_THREAD = frozenset({"report", "runs", "gate", "compare"})


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` console script (``argv`` None: this process's own
    arguments, and assay owns the process's exit)."""
    if argv is not None:
        _main(argv, owns_process=False)
        return
    try:
        _main(None, owns_process=True)
    except SystemExit as done:
        _exit(done.code)
    _exit(0)


def _main(argv: list[str] | None, owns_process: bool) -> None:
    from assay._controls import escape_controls
    from assay.cli._app import app_for
    from assay.cli._terminal import install
    from assay.errors import AssayError

    install()  # no control character from data reaches the terminal
    args = sys.argv[1:] if argv is None else argv
    if owns_process:
        from assay._interrupt import install as interrupt_outside_finalizers

        interrupt_outside_finalizers()
        if args and args[0] in ONE_BLAS_THREAD:
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        app_for(args)(args=argv, prog_name="assay")
    except SystemExit as done:
        if done.code == 130 and owns_process:
            _exit_interrupted()
        raise
    except AssayError as err:
        sys.stderr.write(f"assay: {escape_controls(str(err))}\n")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.stderr.write("assay: interrupted\n")
        if owns_process:
            _exit_interrupted()
        sys.exit(130)


def _exit(code: object) -> NoReturn:
    """End the process with ``code`` as the interpreter would, less its tear-down.

    Before it exits, the interpreter waits for the threads that are not daemons, runs the
    ``atexit`` handlers (OpenTelemetry's flush, logging's, a user's) and flushes the
    standard streams; all of that is done here, and any store still open is closed. What
    is skipped is freeing every module and object one by one, a tenth of a second or more
    that nobody needs once the command's stores are closed and its output written. When a
    stream cannot be flushed (a closed pipe), the interpreter's own exit says so as it
    always does.
    """
    # What the interpreter calls first: stop idle executors, wait for the other threads.
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is None:
        raise SystemExit(code)  # this Python's own exit, tear-down included
    shutdown()
    atexit._run_exitfuncs()
    opened = loaded("assay.store._open")
    if opened is not None:  # a store left open by an error path
        opened.close_opened()
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except Exception:
        raise SystemExit(code) from None
    if code is None:
        os._exit(0)
    if isinstance(code, int):
        os._exit(code)
    raise SystemExit(code)  # a message: the interpreter prints it and exits 1


def _exit_interrupted() -> NoReturn:
    """End an interrupted command now, with exit 130. What it recorded is already written
    (the run marked interrupted, the report emitted); a further Ctrl-C during the
    interpreter's own clean-up would otherwise kill the process by SIGINT, which a caller
    sees instead of 130."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(130)


__all__ = ["main"]
