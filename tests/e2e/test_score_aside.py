"""``assay score`` with its results file read by a second process prints what it prints
reading the file itself, and says the same about a file it cannot score. Run in this
process (``run_cli``), whatever ``ASSAY_TEST_PROCESS`` says: the threshold is patched."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.inprocess import run_cli

from assay.load import _aside
from assay.scoring import _files as _streamed

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_assay() -> RunAssay:
    return run_cli


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


def _inputs(directory: Path, extra: str = "") -> tuple[Path, Path]:
    cases, results = directory / "cases.jsonl", directory / "results.jsonl"
    kinds = [
        {"kind": "answer", "fact": "f"},
        {"kind": "answer", "fact": "g", "text": "said g"},
        {"kind": "abstain", "reason": "unsure"},
        {"kind": "error", "class": "timeout", "message": "after 30 s"},
        {"kind": "answer", "text": "free"},
    ]
    with cases.open("w") as c, results.open("w") as r:
        for i in range(3_000):
            abstain = i % 4 == 0
            case = {"id": f"C{i}", "slice": f"s{i % 3}", "question": f"q {i}?"}
            case |= {"expected_behavior": "abstain" if abstain else "answer"}
            case |= {"expected_fact": None if abstain else "f"}
            c.write(json.dumps(case) + "\n")
            if i % 17:
                r.write(json.dumps({"id": f"C{i}", **kinds[i % len(kinds)]}) + "\n")
        r.write(extra)
    return cases, results


def _score(
    run_assay: RunAssay, directory: Path, fmt: str, aside: bool, monkeypatch: pytest.MonkeyPatch
) -> subprocess.CompletedProcess[str]:
    monkeypatch.setattr(_aside, "ASIDE_BYTES", 0 if aside else 2**62)
    return run_assay("score", "cases.jsonl", "results.jsonl", "-f", fmt, cwd=directory)


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize(
    "extra",
    [
        "",
        '{"id": "C17", "kind": "answer", "fact": "f", "trial": 1}\n',  # read the usual way
        '{"id": "C17", "kind": "answer", "fact": "f", "latency_ms": 12.5}\n',  # the full path
    ],
)
def test_the_report_is_the_one_read_here(
    tmp_path: Path, run_assay: RunAssay, monkeypatch: pytest.MonkeyPatch, fmt: str, extra: str
) -> None:
    _inputs(tmp_path, extra)
    here = _score(run_assay, tmp_path, fmt, False, monkeypatch)
    made: list[object] = []
    of_lines = _streamed.streamed_lines_report
    monkeypatch.setattr(
        _streamed,
        "streamed_lines_report",
        lambda *a, **k: made.append(of_lines(*a, **k)) or made[-1],
    )
    aside = _score(run_assay, tmp_path, fmt, True, monkeypatch)
    assert here.returncode == aside.returncode == 0, aside.stderr
    assert len(made) == (0 if extra else 1) and all(made)  # the lines came back when usual
    assert aside.stdout == here.stdout
    assert aside.stderr == here.stderr


@pytest.mark.parametrize(
    "extra",
    [
        '{"id": "C9999", "kind": "answer", "fact": "f"}\n',  # an unknown case
        '{"id": "C1", "kind": "answer", "fact": "f"}\n',  # a repeated one
        '{"id": "C17", "kind": "answer"}\n',  # no fact
        "{not json\n",
    ],
)
def test_a_file_it_cannot_score_is_refused_alike(
    tmp_path: Path, run_assay: RunAssay, monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    _inputs(tmp_path, extra)
    here = _score(run_assay, tmp_path, "json", False, monkeypatch)
    aside = _score(run_assay, tmp_path, "json", True, monkeypatch)
    assert here.returncode == aside.returncode == 2
    assert aside.stdout == here.stdout == ""
    assert aside.stderr == here.stderr
    assert "results.jsonl" in aside.stderr and "Traceback" not in aside.stderr


def test_a_bad_dataset_is_refused_while_the_results_are_read(
    tmp_path: Path, run_assay: RunAssay, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases, _ = _inputs(tmp_path)
    cases.write_text(cases.read_text() + '{"id": "C1", "slice": "s"}\n')
    done = _score(run_assay, tmp_path, "json", True, monkeypatch)
    assert done.returncode == 2
    assert "cases.jsonl:3001" in done.stderr and "Traceback" not in done.stderr
