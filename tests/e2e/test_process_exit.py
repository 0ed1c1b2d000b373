"""A command's process ends as the interpreter would end it: its threads finished, every
``atexit`` handler run, its output and its store complete, its exit code kept."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

RunAssay = Callable[..., subprocess.CompletedProcess[str]]

TARGET = """
import atexit
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).parent


def _late() -> None:
    time.sleep(0.3)
    (HERE / "thread-done").write_text("yes")


def _at_exit() -> None:
    (HERE / "atexit-ran").write_text("yes")


atexit.register(_at_exit)
threading.Thread(target=_late, daemon=False).start()
# An executor never shut down: its idle worker must be told to stop, not waited for.
POOL = ThreadPoolExecutor(max_workers=1)
POOL.submit(time.sleep, 0)


def answer(case: object) -> dict[str, str]:
    return {"kind": "answer", "fact": "paris", "text": "Paris."}
"""

SUITE = """
name: exit
dataset: cases.jsonl
target:
  type: function
  callable: exit_app:answer
"""


def test_a_run_process_finishes_threads_runs_atexit_and_closes_its_store(
    tmp_path: Path, run_assay_process: RunAssay
) -> None:
    (tmp_path / "exit_app.py").write_text(TARGET)
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "cases.jsonl").write_text(
        json.dumps(
            {
                "id": "c1",
                "slice": "geography",
                "question": "What is the capital of France?",
                "expected_behavior": "answer",
                "expected_fact": "paris",
            }
        )
        + "\n"
    )
    store = tmp_path / "runs.db"
    done = run_assay_process(
        "run", tmp_path / "suite.yaml", "--format", "json", "--store", f"sqlite:///{store}"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["statuses"]["passed"] == 1
    assert (tmp_path / "atexit-ran").read_text() == "yes"
    assert (tmp_path / "thread-done").read_text() == "yes"
    # Every connection was closed: SQLite folded its write-ahead log into the file.
    assert store.is_file()
    assert not Path(f"{store}-wal").exists()


def test_exit_codes_and_messages_are_kept(tmp_path: Path, run_assay_process: RunAssay) -> None:
    missing = run_assay_process("score", tmp_path / "nope.jsonl", tmp_path / "nope2.jsonl")
    assert missing.returncode == 2
    assert missing.stderr.startswith("assay: ")
    assert "Traceback" not in missing.stderr
    version = run_assay_process("--version")
    assert (version.returncode, version.stdout.startswith("assay ")) == (0, True)
    usage = run_assay_process("score", "--no-such-option")
    assert usage.returncode == 2
    assert "No such option" in usage.stderr


def test_a_store_left_open_is_closed_before_the_process_ends(tmp_path: Path) -> None:
    store = tmp_path / "left.db"
    script = (
        "import sys\n"
        "from assay.store import open_store\n"
        f"kept = open_store({f'sqlite:///{store}'!r})\n"
        "from assay.cli import _exit\n"
        "_exit(0)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert store.is_file()
    assert not Path(f"{store}-wal").exists()
