"""`assay import inspect` on a log the installed inspect_ai writes during the test, and on
Zstandard and unreadable archives through the CLI."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.interop_logs import DATA, ZSTANDARD, inspect_log, inspect_sample, write_eval_log

from assay.interop import ScoreRule, import_inspect

WRITER = DATA / "write_inspect_log.py"
STATUS = {"C": "passed", "I": "failed"}


def _write_with_inspect(log_dir: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(WRITER), str(log_dir)],
        capture_output=True,
        text=True,
        cwd=log_dir.parent,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return said


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai is not installed (pip install 'assay[interop]')",
)
def test_a_log_the_installed_inspect_ai_writes_imports_every_sample(
    run_assay_process: RunAssay, tmp_path: Path
) -> None:
    said = _write_with_inspect(tmp_path / "logs")
    log = Path(str(said["log"]))
    with zipfile.ZipFile(log) as archive:  # the members inspect writes, as zipfile lists them
        methods = {info.filename: info.compress_type for info in archive.infolist()}
    assert methods["header.json"] == ZSTANDARD
    assert {m for n, m in methods.items() if n.startswith("samples/")} == {ZSTANDARD}

    samples = said["samples"]
    assert isinstance(samples, list)
    expected = {
        (s["id"], s["epoch"]): "error" if s["error"] else STATUS[s["score"]] for s in samples
    }
    # what the log says: 4 samples × 2 epochs; boom errored twice, limited hit its limit
    assert said["status"] == "success"
    assert said["total_samples"] == len(expected) == 8
    assert said["completed_samples"] == 8 - sum(s["error"] for s in samples) == 6
    assert sorted(s["id"] for s in samples if s["limit"] == "token") == ["limited"] * 2
    assert Counter(expected.values()) == {"passed": 2, "failed": 4, "error": 2}

    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay_process("import", "inspect", log, "--store", store)  # a fresh process
    assert done.returncode == 0, done.stderr
    assert f"imported inspect_ai {said['inspect_ai']} {log.name}" in done.stdout
    assert "assay: task success 2/8 (25.0%)" in done.stdout
    assert "2 errors, 0 missing, 0 ungraded" in done.stdout
    (run_id,) = re.findall(r"as run (\S+):", done.stdout)
    exported = run_assay_process("export", run_id, "--store", store)
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert {(r["case_id"], r["trial"]): r["status"] for r in rows} == expected
    errors = {r["error_message"] for r in rows if r["status"] == "error"}
    assert errors == {"RuntimeError('the solver failed on purpose')"}

    run = import_inspect(log, rule=ScoreRule())
    limits = {(r.case_id, r.trial): r.extra.get("inspect_limit") for r in run.records}
    assert limits[("limited", 1)]["type"] == "token"  # type: ignore[index]
    assert limits[("right", 1)] is None


def test_a_zstandard_log_imports_through_the_cli(run_assay: RunAssay, tmp_path: Path) -> None:
    samples = [inspect_sample(1), inspect_sample(2, value="I"), inspect_sample(3, error="x")]
    log = inspect_log(samples, sample_ids=[1, 2, 3, 4], accuracy=0.5)
    path = write_eval_log(tmp_path / "z.eval", log, method=ZSTANDARD)
    done = run_assay("import", "inspect", path, "--store", f"sqlite:///{tmp_path / 'a.db'}")
    assert done.returncode == 0, done.stderr
    assert "task success 1/4 (25.0%)" in done.stdout
    assert "1 errors, 1 missing, 0 ungraded" in done.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("method 99", "member header.json uses zip compression method 99 (AES-encrypted)"),
        ("truncated", "a damaged or truncated zip archive"),
        ("not a log", "not an inspect log: neither a .eval archive nor JSON"),
    ],
)
def test_an_unreadable_eval_log_exits_2_naming_file_and_member(
    run_assay_process: RunAssay, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.eval"
    log = inspect_log([inspect_sample(1)], sample_ids=[1])
    if content == "method 99":
        write_eval_log(path, log, method=99)
    elif content == "truncated":
        whole = write_eval_log(tmp_path / "whole.eval", log, method=ZSTANDARD).read_bytes()
        path.write_bytes(whole[: len(whole) // 2])
    else:
        path.write_bytes(b"\x00\x01 binary")
    done = run_assay_process("import", "inspect", path, "--store", f"sqlite:///{tmp_path / 'a.db'}")
    assert done.returncode == 2
    assert f"{path}: {message}" in done.stderr
    assert "Traceback" not in done.stderr
