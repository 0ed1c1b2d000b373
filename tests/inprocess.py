"""Running the real ``assay`` command in this process, for fast end-to-end tests.

``run_cli`` is what the ``run_assay`` fixture calls: the console script's ``main`` with the
working directory, the environment, standard input, output and error of a fresh process,
and everything it changed in this interpreter put back afterwards. Tests that need a real
process (signals, a terminal, start-up, ``python -m assay``) use ``run_assay_process``.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TextIO

import pytest

from assay.cli import main

ROOT = Path(__file__).resolve().parent.parent
# Modules imported from here stay loaded between runs; any other module a command
# imported (a user's target in a temporary directory) is forgotten after the run.
_KEPT = tuple(
    str(Path(p).resolve()) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, ROOT / "src"}
)
ENVIRONMENT = {"NO_COLOR": "1", "COLUMNS": "120"}


@dataclass(frozen=True)
class Result:
    """What one command did: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def run_inprocess(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    """Run ``assay ARGS`` through the console script's entry point and capture its output."""
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as done:
        code = _exit_code(done)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def run_cli(
    *args: str | Path, cwd: Path | None = None, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``assay ARGS`` in this process as if it were a fresh ``assay`` process, with
    ``env`` added to this process's environment.

    The exit code is what the process would exit with (an uncaught exception prints its
    traceback to standard error and exits 1, as the interpreter does).
    """
    argv = [str(a) for a in args]
    out, err = _capture(), _capture()
    with _isolated(cwd or ROOT, out, err, stdin, {**ENVIRONMENT, **(env or {})}):
        try:
            main(argv)
            code = 0
        except SystemExit as done:
            code = _exit_code(done, sys.stderr)
        except BaseException:  # the interpreter would print it and exit 1
            sys.stderr.write(traceback.format_exc())
            code = 1
    return subprocess.CompletedProcess(["assay", *argv], code, stdout=_text(out), stderr=_text(err))


def run_process(
    *args: str | Path,
    cwd: Path | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m assay ARGS`` in a subprocess, as a user would (``env`` added to this
    process's environment)."""
    return subprocess.run(
        [sys.executable, "-m", "assay", *map(str, args)],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=cwd or ROOT,
        env={**os.environ, **ENVIRONMENT, **(env or {})},
        timeout=120,
        check=False,
    )


def _exit_code(done: SystemExit, stderr: TextIO | None = None) -> int:
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code
    if stderr is not None:  # sys.exit("message") prints the message, as the interpreter does
        stderr.write(f"{done.code}\n")
    return 1


def _capture() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    assert isinstance(raw, bytes)
    # As subprocess's text mode reads it: universal newlines.
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def _isolated(
    cwd: Path, out: TextIO, err: TextIO, stdin: str, env: dict[str, str]
) -> Iterator[None]:
    """A fresh process's view of the world for the block; this one's restored after it."""
    streams = sys.stdin, sys.stdout, sys.stderr
    environ = dict(os.environ)
    here = os.getcwd()
    path = list(sys.path)
    modules = dict(sys.modules)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers, root.level = [], logging.WARNING  # an unconfigured interpreter's logging
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    os.environ.update(env)
    os.chdir(cwd)
    try:
        with warnings.catch_warnings():
            _interpreter_warnings()
            yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        root.handlers, root.level = handlers, level
        os.chdir(here)
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        # A module the run imported, or imported again in place of another (a user's
        # target shadowing one of the same name), is forgotten: the next run imports it
        # afresh, as a new process would.
        for name, module in list(sys.modules.items()):
            if modules.get(name) is module or _kept(module):
                continue
            if name in modules:
                sys.modules[name] = modules[name]
            else:
                del sys.modules[name]


def _kept(module: ModuleType | None) -> bool:
    where = getattr(module, "__file__", None)
    if where is None:  # built in, or a namespace package
        return True
    return str(Path(where).resolve()).startswith(_KEPT)


def _interpreter_warnings() -> None:
    """The filters and output of a fresh interpreter's warnings, instead of pytest's."""
    warnings.resetwarnings()
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    warnings.simplefilter("ignore", ImportWarning)
    warnings.simplefilter("ignore", ResourceWarning)

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    warnings.showwarning = show
