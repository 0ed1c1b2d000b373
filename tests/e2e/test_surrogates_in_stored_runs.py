"""A stored run whose data holds a lone UTF-16 surrogate (JSON in the store may escape one,
``"\\ud800"``, which reads back as no text at all): every command prints it and every format
writes it as the escape ``\\ud800``, valid UTF-8 throughout, never a traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
FORMATS = ("text", "json", "markdown", "html", "junit")


@pytest.fixture
def store(run_store: tuple[str, Path]) -> str:
    """The URL of a store whose run ``base`` has a surrogate in its metadata and target."""
    url, path = run_store
    with sqlite3.connect(path) as db:
        metadata, target = db.execute(
            "SELECT metadata, target FROM runs WHERE id = 'base'"
        ).fetchone()
        # json.dumps escapes the surrogates, as a store written by another client may hold them
        metadata = json.dumps({**json.loads(metadata), "note": "n\udfff", "assay.name": "r\ud800"})
        target = json.dumps({**json.loads(target), "name": "t\ud800"})
        db.execute("UPDATE runs SET metadata = ?, target = ? WHERE id = 'base'", (metadata, target))
    return url


def _clean(text: str) -> str:
    text.encode("utf-8")  # raises on a lone surrogate: nothing could have written it
    return text


@pytest.mark.parametrize("fmt", FORMATS)
def test_report_prints_and_writes_the_surrogate_escaped(
    run_assay: RunAssay, store: str, tmp_path: Path, fmt: str
) -> None:
    printed = run_assay("report", "base", "--store", store, "-f", fmt)
    assert printed.returncode == 0, printed.stderr
    assert "Traceback" not in _clean(printed.stderr)
    _clean(printed.stdout)
    out = tmp_path / f"report.{fmt}"
    written = run_assay("report", "base", "--store", store, "-f", fmt, "-o", out)
    assert written.returncode == 0, written.stderr
    text = _clean(out.read_bytes().decode("utf-8"))  # strict: valid UTF-8
    if fmt in ("json", "html"):  # the formats that carry the run's metadata
        assert "n\\udfff" in text
    if fmt == "json":
        run = json.loads(text)["metadata"]["run"]
        assert run["metadata"]["note"] == "n\udfff"  # the data, exactly


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_run_listing_prints_the_surrogate_escaped(
    run_assay_process: RunAssay, store: str, fmt: str
) -> None:
    # a process of its own: its standard output is a real UTF-8 stream, as a user's is
    done = run_assay_process("runs", "--store", store, "-f", fmt)
    assert done.returncode == 0, done.stderr
    assert "\\ud800" in _clean(done.stdout)


def test_gate_and_compare_print_and_write_the_surrogate_escaped(
    run_assay: RunAssay, store: str, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    gate = run_assay(
        "gate", "base", "--store", store, "-r", "task_success>=0",
        "--junit", tmp_path / "g.xml", "--markdown", tmp_path / "g.md",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )  # fmt: skip
    assert gate.returncode == 0, gate.stderr
    assert "Traceback" not in _clean(gate.stdout + gate.stderr)
    for written in (tmp_path / "g.xml", tmp_path / "g.md", summary):
        _clean(written.read_bytes().decode("utf-8"))
    for fmt in ("text", "json", "markdown", "html"):
        done = run_assay("compare", "base", "cand", "--store", store, "-f", fmt)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in _clean(done.stderr)
        _clean(done.stdout)


def test_a_run_with_the_surrogate_is_tagged_and_keeps_it(
    store: str, run_store: tuple[str, Path], run_assay_process: RunAssay
) -> None:
    """Writing the run's metadata back (a tag) escapes the surrogate the database cannot
    hold, instead of failing with a traceback."""
    with sqlite3.connect(run_store[1]) as db:  # a run of a suite: one that can hold a tag
        db.execute(
            "UPDATE runs SET suite_path = 'suite.yaml', suite = ? WHERE id = 'base'",
            (json.dumps({"name": "s", "dataset": "d.jsonl"}),),
        )
    done = run_assay_process("runs", "tag", "base", "release-1", "--store", store)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    listed = run_assay_process("runs", "--store", store, "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert "release-1" in listed.stdout and "\\ud800" in listed.stdout


def test_a_reply_holding_a_lone_surrogate_is_an_error_and_the_run_goes_on(
    tmp_path: Path, run_assay_process: RunAssay
) -> None:
    """A target's reply that is not text (it cannot be stored) is recorded as a
    ``parse_error`` naming where, and every other case-trial is answered and stored."""
    (tmp_path / "odd_app.py").write_text(
        "def answer(case):\n"
        "    text = 'odd \\ud800 text' if case.id == 'E1' else 'fine'\n"
        "    return {'kind': 'answer', 'fact': 'return_window_30_days', 'text': text}\n",
        encoding="utf-8",
    )
    dataset = Path(__file__).resolve().parents[2] / "examples" / "policy" / "policy.jsonl"
    (tmp_path / "suite.yaml").write_text(
        f"name: odd\ndataset: {dataset}\ntarget:\n  type: function\n  callable: odd_app:answer\n",
        encoding="utf-8",
    )
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    done = run_assay_process("run", str(tmp_path / "suite.yaml"), "--store", store, "-f", "json")
    assert "Traceback" not in done.stderr and "damaged" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    rows = {row["id"]: row for row in report["cases"]}
    assert rows["E1"]["status"] == "error"
    assert "reply.text holds a lone UTF-16 surrogate" in rows["E1"]["reason"]
    assert rows["E2"]["status"] == "failed" and rows["E3"]["status"] == "failed"
    assert (report["total"], report["errors"], report["missing"]) == (6, 1, 0)
