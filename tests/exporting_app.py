"""An instrumented application started for a test: it serves on a loopback port and exports
its spans to a receiver port, both held for the test (``tests.ports``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.ports import reserved_port


@contextmanager
def exporting_app(script: Path) -> Iterator[tuple[int, int]]:
    """``python SCRIPT --port PORT`` exporting to ``127.0.0.1:RECEIVER``, ready for
    connections: (port, receiver)."""
    with reserved_port() as port, reserved_port() as receiver:
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{receiver}/v1/traces",
        }
        process = subprocess.Popen(
            [sys.executable, str(script), "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            yield port, receiver
        finally:
            process.terminate()
            process.wait(timeout=10)
