"""Hostile or impossible inputs on the command line: exit 2, one message, no traceback."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
POLICY = Path(__file__).parents[2] / "examples" / "policy"
LONG = "x" * 5000


def _refused(done: subprocess.CompletedProcess[str], needle: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("assay: "), done.stderr
    assert needle in done.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "policy.jsonl", "/dev/zero"], "not a regular file"),
        (["score", "policy.jsonl", f"/tmp/{LONG}.jsonl"], "File name too long"),
        (["composite", "policy.jsonl", f"/tmp/{LONG}.jsonl"], "File name too long"),
        (["gate", f"/tmp/{LONG}.json", "-r", "task_success>=0"], "File name too long"),
        (["score", "policy.jsonl", "results.jsonl", "-o", "/dev/null/r.txt"], "--output"),
        (["score", "policy.jsonl", "results.jsonl", "-o", f"/tmp/{LONG}.txt"], "--output"),
        (["score", "policy.jsonl", "results.jsonl", "-o", "/dev/stdout"], "not a regular file"),
        (["run", "suite.yaml", "--store", "sqlite:////dev/null/x.db"], "cannot open store"),
        (["runs", "--store", "postgresql://u@127.0.0.1:abc/db"], "not a database URL"),
        (["run", "suite.yaml", "--otlp", "http://127.0.0.1:abc"], "port must be a number"),
        (["run", "suite.yaml", "--otlp", "http://127.0.0.1:99999"], "port must be a number"),
    ],
)
def test_impossible_paths_and_ports_are_one_message(
    run_assay: RunAssay, run_assay_process: RunAssay, args: list[str], needle: str
) -> None:
    # /dev/stdout is the process's own standard output: a pipe only in a process of its own
    run = run_assay_process if "/dev/stdout" in args else run_assay
    _refused(run(*args, cwd=POLICY), needle)


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("nul.jsonl", b"\x00" * 32, "NUL"),
        ("extra.json", b'{"results": [{"id": "E1", "kind": "abstain"}], "x": 1}', '"x"'),
    ],
)
def test_composite_refuses_what_score_refuses(
    run_assay: RunAssay, tmp_path: Path, name: str, content: bytes, needle: str
) -> None:
    results = tmp_path / name
    results.write_bytes(content)
    dataset = POLICY / "policy.jsonl"
    for command in ("score", "composite"):
        _refused(run_assay(command, dataset, results), needle)


@pytest.mark.parametrize(("name", "content"), [("empty.json", b"[]"), ("blank.jsonl", b"\n\n")])
def test_composite_and_score_read_an_empty_file_alike(
    run_assay: RunAssay, tmp_path: Path, name: str, content: bytes
) -> None:
    """A file with no results is nothing recorded: every case missing, in both commands."""
    results = tmp_path / name
    results.write_bytes(content)
    for command in ("score", "composite"):
        done = run_assay(command, POLICY / "policy.jsonl", results, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert "every case is missing" in done.stderr or '"missing": 6' in done.stdout
