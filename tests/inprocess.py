"""Running the real ``assay`` command in this process, for fast end-to-end tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.cli import main


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
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)
