"""The command-line interface. ``main`` maps every ``AssayError`` to one paragraph, exit 2."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` console script (``argv`` None: this process's own
    arguments, and assay owns the process's exit)."""
    from assay._controls import escape_controls
    from assay.cli._app import app_for
    from assay.cli._terminal import install
    from assay.errors import AssayError

    install()  # no control character from data reaches the terminal
    owns_process = argv is None
    try:
        app_for(sys.argv[1:] if argv is None else argv)(args=argv, prog_name="assay")
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
