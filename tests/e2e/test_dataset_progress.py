"""`assay validate` and `assay dedupe` draw a progress bar on a terminal's stderr only."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import RunAssay

BAR = "━"


def _dataset(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            case = {
                "id": f"c{i}",
                "slice": "s",
                "question": hashlib.sha256(str(i).encode()).hexdigest(),  # no near-duplicates
                "expected_behavior": "answer",
                "expected_fact": "f",
                "rationale": "r",
            }
            handle.write(json.dumps(case) + "\n")
    return path


def _on_a_terminal(args: list[str], cwd: Path) -> tuple[str, str]:
    """(stdout, redirected to a file, and everything written to the terminal that is
    stderr)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    env.pop("FORCE_COLOR", None)
    out_path = cwd / "stdout.txt"
    with out_path.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "assay", *args], cwd=cwd, stdout=out, stderr=follower, env=env
        )
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        drawn += chunk
    process.wait(timeout=60)
    os.close(leader)
    return out_path.read_text(encoding="utf-8"), drawn.decode(errors="replace")


@pytest.mark.parametrize("command", ["validate", "dedupe"])
def test_a_large_dataset_shows_a_bar_on_the_terminal_and_nothing_on_stdout(
    command: str, tmp_path: Path
) -> None:
    _dataset(tmp_path / "big.jsonl", 1500)
    out, drawn = _on_a_terminal([command, "big.jsonl", "-f", "json"], tmp_path)
    assert f"{command} " in drawn and BAR in drawn and "/1500" in drawn
    assert json.loads(out)["cases"] == 1500  # stdout is the report alone
    assert BAR not in out


def test_no_bar_off_a_terminal_or_on_a_small_dataset(run_assay: RunAssay, tmp_path: Path) -> None:
    big = _dataset(tmp_path / "big.jsonl", 1500)
    done = run_assay("validate", big, "-f", "json")
    assert BAR not in done.stderr and BAR not in done.stdout
    _dataset(tmp_path / "small.jsonl", 50)
    out, drawn = _on_a_terminal(["validate", "small.jsonl"], tmp_path)
    assert BAR not in drawn and "50 valid case(s)" in out
