"""``assay score`` output: each format as the renderer draws it, ``--output`` rules."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from assay import __version__, build_report, load_dataset, load_results
from assay.grading import grade_all
from assay.render import render

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def work(tmp_path: Path, policy_dir: Path) -> Path:
    for name in ("policy.jsonl", "policy-e7.jsonl", "results.jsonl"):
        shutil.copy(policy_dir / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_cli_prints_what_the_renderer_draws(work: Path, run_assay: RunAssay, fmt: str) -> None:
    done = run_assay("score", "policy-e7.jsonl", "results.jsonl", "--format", fmt, cwd=work)
    assert done.returncode == 0, done.stderr
    dataset = load_dataset(work / "policy-e7.jsonl")
    report = build_report(dataset, grade_all(dataset, load_results(work / "results.jsonl")))
    assert done.stdout == render(report, fmt)
    assert __version__ in done.stdout


def test_output_file_gets_the_report_and_stdout_stays_empty(
    work: Path, run_assay: RunAssay
) -> None:
    done = run_assay(
        "score", "policy.jsonl", "results.jsonl", "-f", "json", "-o", "out/r.json", cwd=work
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert json.loads((work / "out" / "r.json").read_text())["total"] == 6


def test_an_earlier_report_is_replaced(work: Path, run_assay: RunAssay) -> None:
    for fmt in ("json", "markdown", "text", "json"):
        done = run_assay(
            "score", "policy.jsonl", "results.jsonl", "-f", fmt, "-o", "r.out", cwd=work
        )
        assert done.returncode == 0, done.stderr
    assert json.loads((work / "r.out").read_text())["total"] == 6


@pytest.mark.parametrize("target", ["policy.jsonl", "results.jsonl", "./sub/../results.jsonl"])
def test_output_never_overwrites_an_input(work: Path, run_assay: RunAssay, target: str) -> None:
    (work / "sub").mkdir()
    before = {p.name: p.read_bytes() for p in work.glob("*.jsonl")}
    done = run_assay("score", "policy.jsonl", "results.jsonl", "-o", target, cwd=work)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "is one of this command's inputs" in done.stderr
    assert {p.name: p.read_bytes() for p in work.glob("*.jsonl")} == before


def test_output_never_overwrites_a_file_assay_did_not_write(
    work: Path, run_assay: RunAssay
) -> None:
    notes = work / "notes.md"
    notes.write_text("# my notes\n")
    done = run_assay(
        "score", "policy.jsonl", "results.jsonl", "-f", "markdown", "-o", notes, cwd=work
    )
    assert done.returncode == 2
    assert "is not an assay report" in done.stderr
    assert notes.read_text() == "# my notes\n"


def test_output_never_overwrites_another_dataset(work: Path, run_assay: RunAssay) -> None:
    done = run_assay("score", "policy.jsonl", "results.jsonl", "-o", "policy-e7.jsonl", cwd=work)
    assert done.returncode == 2
    assert (work / "policy-e7.jsonl").read_text().startswith('{"id": "E1"')


def test_output_to_a_directory_is_refused(work: Path, run_assay: RunAssay) -> None:
    done = run_assay("score", "policy.jsonl", "results.jsonl", "-o", ".", cwd=work)
    assert done.returncode == 2
    assert "is a directory" in done.stderr


def test_refused_output_is_checked_before_scoring(work: Path, run_assay: RunAssay) -> None:
    (work / "notes.txt").write_text("keep me\n")
    done = run_assay("score", "missing.jsonl", "results.jsonl", "-o", "notes.txt", cwd=work)
    assert done.returncode == 2
    assert "notes.txt" in done.stderr


def test_all_abstain_dataset_reads_na_not_zero(work: Path, run_assay: RunAssay) -> None:
    (work / "d.jsonl").write_text(
        '{"id": "A1", "slice": "missing", "question": "Gift wrap?", '
        '"expected_behavior": "abstain"}\n'
        '{"id": "A2", "slice": "missing", "question": "Fee?", "expected_behavior": "abstain"}\n'
    )
    (work / "r.jsonl").write_text(
        '{"id": "A1", "kind": "abstain"}\n{"id": "A2", "kind": "abstain"}\n'
    )
    text = run_assay("score", "d.jsonl", "r.jsonl", cwd=work).stdout
    line = next(x for x in text.splitlines() if x.startswith("Answered accuracy"))
    assert "0/0" in line
    assert "n/a (no substantive answers)" in line
    assert "0.0%" not in line
    report = json.loads(run_assay("score", "d.jsonl", "r.jsonl", "-f", "json", cwd=work).stdout)
    assert report["answered_accuracy"]["value"] is None
    assert report["answered_accuracy"]["ci"] is None
    assert report["answered_accuracy"]["denominator"] == 0
    assert report["task_success"]["value"] == 1.0
