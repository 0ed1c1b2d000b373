"""Hostile text from data (case ids, slices, answers, reasons, span attributes) through
every text and Markdown output of every command: nothing reaches a terminal live, and
nothing in Markdown becomes HTML, a link or a broken table row."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.payloads import ALL, LIVE_TERMINAL, broken_table_rows, live_html


def _json_to(name: str) -> list[str]:
    return ["-f", "json", "-o", f"{name}.json"]


RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def _case(i: int, payload: str) -> dict[str, object]:
    return {
        "id": f"P{i} {payload}",
        "slice": f"s{i % 3} {payload}"[:40],
        "question": payload,
        "expected_behavior": "answer",
        "expected_fact": "fact",
    }


def _outcome(i: int, payload: str) -> dict[str, object]:
    case_id = f"P{i} {payload}"
    if i % 3 == 0:
        return {"id": case_id, "kind": "error", "message": payload}
    if i % 3 == 1:
        return {"id": case_id, "kind": "abstain", "reason": payload}
    return {"id": case_id, "kind": "answer", "fact": "other", "text": payload}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    cases = [_case(i, p) for i, p in enumerate(ALL)]
    outcomes = [_outcome(i, p) for i, p in enumerate(ALL)]
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (root / "results.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outcomes))
    other = [{"id": o["id"], "kind": "answer", "fact": "fact"} for o in outcomes[::2]]
    (root / "other.jsonl").write_text("".join(json.dumps(o) + "\n" for o in other))
    (root / "dup.jsonl").write_text(json.dumps(cases[0]) + "\n" + json.dumps(cases[0]) + "\n")
    (root / "suite.yaml").write_text(
        "name: hostile\ndataset: cases.jsonl\ntarget: {type: scripted, results: results.jsonl}\n"
        "grader: structured\nconcurrency: 2\nretries: 0\n"
    )
    for name in ("results", "other"):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "assay",
                "score",
                "cases.jsonl",
                f"{name}.jsonl",
                *_json_to(name),
            ],
            cwd=root,
            check=False,
            capture_output=True,
        )
        assert (root / f"{name}.json").exists()
    return root


def _clean_terminal(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    for stream in (done.stdout, done.stderr):
        live = LIVE_TERMINAL.findall(stream)
        assert not live, (sorted(set(live)), stream[:2000])


COMMANDS = [
    ["score", "cases.jsonl", "results.jsonl"],
    ["score", "cases.jsonl", "results.jsonl", "-f", "json"],
    ["score", "cases.jsonl", "dup.jsonl"],
    ["score", "dup.jsonl", "results.jsonl"],
    ["composite", "cases.jsonl", "results.jsonl"],
    ["compare", "results.json", "other.json"],
    ["run", "suite.yaml", "--store", "sqlite:///s.db"],
    ["runs", "--store", "sqlite:///s.db"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_no_terminal_control_reaches_the_terminal(
    run_assay: RunAssay, hostile: Path, args: list[str]
) -> None:
    done = run_assay(*args, cwd=hostile)
    assert done.returncode in (0, 1, 2), done.stderr
    _clean_terminal(done)


def test_stored_runs_print_escaped_in_every_command(run_assay: RunAssay, hostile: Path) -> None:
    store = f"sqlite:///{hostile / 'runs.db'}"
    done = run_assay("run", "suite.yaml", "--store", store, "-f", "json", cwd=hostile)
    run_id = json.loads(done.stdout)["run_id"]
    case = f"P0 {ALL[0]}"
    for args in (
        ["runs"],
        ["report", run_id],
        ["report", run_id, "-f", "markdown"],
        ["trace", run_id, case, "--all-attributes"],
        ["diagnose", run_id, "--all"],
        ["diagnose", run_id, case],
        ["gate", run_id, "-r", "task_success>=0.99"],
        ["compare", run_id, run_id],
    ):
        result = run_assay(*args, "--store", store, cwd=hostile)
        assert result.returncode in (0, 1), (args, result.stderr)
        _clean_terminal(result)


MARKDOWN = [
    ["score", "cases.jsonl", "results.jsonl", "-f", "markdown"],
    ["composite", "cases.jsonl", "results.jsonl", "-f", "markdown"],
    ["compare", "results.json", "other.json", "-f", "markdown"],
]


@pytest.mark.parametrize("args", MARKDOWN, ids=lambda a: a[0])
def test_no_payload_is_live_in_markdown(
    run_assay: RunAssay, hostile: Path, args: list[str]
) -> None:
    done = run_assay(*args, cwd=hostile)
    assert done.returncode in (0, 1), done.stderr
    _clean_terminal(done)
    assert live_html(done.stdout) == []
    assert broken_table_rows(done.stdout) == []
    assert "P5 " in done.stdout  # the payload cases are there, escaped, not dropped


def test_gate_markdown_summary_is_inert(run_assay: RunAssay, hostile: Path) -> None:
    summary = hostile / "summary.md"
    summary.unlink(missing_ok=True)
    done = run_assay(
        "gate", "results.json", "-r", "task_success>=0.99", "--markdown", summary, cwd=hostile
    )
    assert done.returncode == 1, done.stderr
    _clean_terminal(done)
    text = summary.read_text(encoding="utf-8")
    assert live_html(text) == []
    assert broken_table_rows(text) == []
