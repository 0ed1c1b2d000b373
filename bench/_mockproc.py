"""Start the mock server as a child process and stop it again."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MOCK = Path(__file__).with_name("mock_openai.py")


@contextmanager
def mock_server(*flags: str, python: str = sys.executable, script: Path = MOCK) -> Iterator[str]:
    """Run ``mock_openai.py`` (or ``script``, e.g. ``mock_faults.py``) with ``flags`` on a
    free port; yield its ``/v1`` base URL."""
    proc = subprocess.Popen(
        [python, str(script), "--port", "0", *flags],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("listening "):
            raise RuntimeError(f"mock server did not start (said {line!r})")
        yield line.split(" ", 1)[1] + "/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
