"""Every command that reads recorded results, report files or another tool's log refuses a
trial number beyond what its lines can number, at once and naming where it is, with the
one bound ``assay score`` applies to a results file (exit 2, never a run over a
billion-trial report).

Each command runs as a user runs it, in its own process with a timeout far above the
second or two a refusal takes yet far below the minutes (and gigabytes) an unbounded
trial number costs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.inprocess import ENVIRONMENT, ROOT
from tests.interop_logs import inspect_log, inspect_sample

POLICY = ROOT / "examples" / "policy"
HUGE = (100_000_000_000_000_000_000, 1_000_000)
TIMEOUT = 60  # seconds; the unbounded command took > 120 s and gigabytes


def _assay(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assay", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **ENVIRONMENT},
        timeout=TIMEOUT,
        check=False,
    )


def _refused(done: subprocess.CompletedProcess[str], *named: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    for part in named:
        assert part in done.stderr, done.stderr


def _lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("trial", HUGE)
def test_composite_refuses_an_answer_line_with_a_huge_trial(tmp_path: Path, trial: int) -> None:
    results = _lines(
        tmp_path / "answers.jsonl",
        [
            {"id": "E1", "kind": "answer", "text": "Within 30 days."},
            {"id": "E2", "kind": "answer", "text": "Within 30 days.", "trial": trial},
        ],
    )
    done = _assay("composite", POLICY / "policy.jsonl", results, cwd=tmp_path)
    _refused(done, f"{results}:2: trial {trial} is beyond the 1,000 trials")


@pytest.mark.parametrize("trial", HUGE)
def test_composite_refuses_a_checks_line_with_a_huge_trial(tmp_path: Path, trial: int) -> None:
    results = _lines(
        tmp_path / "checks.jsonl",
        [{"id": "E1", "trial": trial, "checks": {"content_present": True}}],
    )
    done = _assay("composite", POLICY / "policy.jsonl", results, cwd=tmp_path)
    _refused(done, f"{results}:1: trial {trial} is beyond the 1,000 trials")


def test_synthesize_refuses_a_results_file_with_a_huge_trial(tmp_path: Path) -> None:
    results = _lines(
        tmp_path / "checks.jsonl",
        [
            {"id": "E1", "checks": {"content_present": True}},
            {"id": "E2", "trial": HUGE[0], "checks": {"content_present": True}},
        ],
    )
    done = _assay(
        "synthesize", "flip-check", POLICY / "policy.jsonl", results,
        "--from", "E1", "--check", "content_present", cwd=tmp_path,
    )  # fmt: skip
    _refused(done, f"{results}:2: trial {HUGE[0]} is beyond the 1,000 trials")


def test_score_refuses_a_declared_trial_count_past_what_a_suite_may_declare(
    tmp_path: Path,
) -> None:
    done = _assay(
        "score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "--trials", "1000000",
        cwd=tmp_path,
    )  # fmt: skip
    _refused(done, "--trials")


def _report(tmp_path: Path, command: str, results: Path) -> dict[str, Any]:
    out = tmp_path / f"{command}.json"
    done = _assay(command, POLICY / "policy.jsonl", results, "-f", "json", "-o", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("trial", HUGE)
def test_report_files_with_a_row_at_a_huge_trial_are_refused_by_every_reader(
    tmp_path: Path, trial: int
) -> None:
    data = _report(tmp_path, "score", POLICY / "results.jsonl")
    data["cases"][1]["trial"] = trial
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    named = f"{edited}: cases[1].trial {trial} is beyond the 1,000 trials"
    for args in (("compare", edited, edited), ("gate", edited, "--rule", "task_success>=0")):
        _refused(_assay(*args, cwd=tmp_path), named)
    labels = _lines(tmp_path / "labels.jsonl", [{"id": "E1", "human": "pass"}])
    _refused(_assay("calibrate", labels, edited, cwd=tmp_path), named)


def test_a_composite_report_file_with_a_row_at_a_huge_trial_is_refused(tmp_path: Path) -> None:
    data = _report(tmp_path, "composite", POLICY / "answers-text.jsonl")
    data["cases"][0]["trial"] = HUGE[0]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    named = f"{edited}: cases[0].trial {HUGE[0]} is beyond the 1,000 trials"
    _refused(_assay("compare", edited, edited, cwd=tmp_path), named)


@pytest.mark.parametrize(
    ("epochs", "epoch", "named"),
    [
        (1, HUGE[0], f"1 (trial {HUGE[0]})"),
        (1, HUGE[1], f"1 (trial {HUGE[1]})"),
        (HUGE[1], 1, "eval.config.epochs is 1,000,000"),
    ],
)
def test_import_inspect_refuses_a_huge_epoch(
    tmp_path: Path, epochs: int, epoch: int, named: str
) -> None:
    log = tmp_path / "log.json"
    samples = [inspect_sample(1, epoch), inspect_sample(2)]
    log.write_text(json.dumps(inspect_log(samples, sample_ids=[1, 2], epochs=epochs)))
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = _assay("import", "inspect", log, "--store", store, cwd=tmp_path)
    _refused(done, named, str(log))
