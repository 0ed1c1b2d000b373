"""Every report-producing command honours --confidence and --interval, and every rate it
shows carries an interval at that level by that method (n/a rates carry none)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.inprocess import run_cli

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "policy"
GOLDEN = ROOT / "examples" / "golden17"
LEVEL = ("--confidence", "0.9", "--interval", "wilson")


def _rates(node: Any) -> Iterator[dict[str, Any]]:
    """Every Rate in a JSON report: a mapping with a numerator, a denominator and ci."""
    if isinstance(node, dict):
        if {"numerator", "denominator", "ci"} <= node.keys():
            yield node
        for value in node.values():
            yield from _rates(value)
    elif isinstance(node, list):
        for value in node:
            yield from _rates(value)


def _assert_every_rate_at_the_level(data: Any) -> int:
    rates = list(_rates(data))
    for r in rates:
        assert (r["confidence"], r["method"]) == (0.9, "wilson"), r
        assert (r["value"] is None) == (r["ci"] is None), r
    return len(rates)


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout


def _assert_text_at_the_level(text: str) -> None:
    assert "90%" in text
    assert "95%" not in text


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """A store with two runs of the demo (two trials per case): URL and both run ids."""
    store = f"sqlite:///{tmp_path_factory.mktemp('store') / 'runs.db'}"
    ids = []
    for config in ("v1", "v2"):
        done = run_cli(
            "run", f"examples/demo/{config}.yaml", "--trials", "2", "--store", store,
            "--format", "json", cwd=ROOT,
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
        ids.append(json.loads(done.stdout)["run_id"])
    return store, ids[0], ids[1]


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_score_renders_the_level_in_every_format(run_assay: RunAssay, fmt: str) -> None:
    out = _ok(run_assay("score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-f", fmt,
                        *LEVEL))  # fmt: skip
    _assert_text_at_the_level(out)


def test_score_json(run_assay: RunAssay) -> None:
    out = _ok(run_assay("score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-f", "json",
                        *LEVEL))  # fmt: skip
    assert _assert_every_rate_at_the_level(json.loads(out)) >= 6


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_composite(run_assay: RunAssay, fmt: str) -> None:
    out = _ok(run_assay("composite", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl",
                        "-f", fmt, *LEVEL))  # fmt: skip
    if fmt == "json":
        assert _assert_every_rate_at_the_level(json.loads(out)) >= 2
    else:
        assert "90%" in out and "95% CI" not in out


def test_run_and_report(run_assay: RunAssay, stored: tuple[str, str, str]) -> None:
    store, base, _ = stored
    out = _ok(run_assay("report", base, "--store", store, "-f", "json", *LEVEL))
    assert _assert_every_rate_at_the_level(json.loads(out)) >= 6
    _assert_text_at_the_level(_ok(run_assay("report", base, "--store", store, *LEVEL)))
    done = run_assay("run", ROOT / "examples" / "demo" / "v2.yaml", "--store", store,
                     "--limit", "4", "-f", "json", *LEVEL)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert _assert_every_rate_at_the_level(json.loads(done.stdout)) >= 6


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_compare(run_assay: RunAssay, stored: tuple[str, str, str], fmt: str) -> None:
    store, base, cand = stored
    out = _ok(run_assay("compare", base, cand, "--store", store, "-f", fmt, *LEVEL))
    if fmt != "json":
        _assert_text_at_the_level(out)
        return
    data = json.loads(out)
    assert _assert_every_rate_at_the_level(data) >= 2
    assert data["task_success_delta"]["ci"] is not None


def test_gate_rebuilds_a_run_at_the_level(
    run_assay: RunAssay, stored: tuple[str, str, str], tmp_path: Path
) -> None:
    store, base, _ = stored
    summary = tmp_path / "gate.md"
    out = _ok(run_assay("gate", base, "--store", store, "-r", "task_success.low>=0",
                        "--markdown", summary, *LEVEL))  # fmt: skip
    assert "gate passed" in out
    text = summary.read_text(encoding="utf-8")
    _assert_text_at_the_level(text)
    assert "90% CI (Wilson, clustered by case)" in text


def test_gate_recomputes_a_report_file_at_the_asked_level(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    _ok(run_assay("score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-f", "json",
                  "-o", report))  # fmt: skip
    scored = run_assay("score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-f", "json",
                       *LEVEL)  # fmt: skip
    at_level = json.loads(_ok(scored))
    low = at_level["task_success"]["ci"][0]
    done = run_assay("gate", report, "-r", "task_success.low>=0", *LEVEL)
    assert done.returncode == 0, done.stderr
    assert f"task_success.low = {low:.4g} (2/6, 90% Wilson interval)" in done.stdout
    assert "was written at 0.95 (clopper-pearson)" in done.stderr
    assert "recomputed from its counts at 0.9 (wilson)" in done.stderr


def test_the_run_list_shows_each_task_success_with_its_interval(
    run_assay: RunAssay, stored: tuple[str, str, str]
) -> None:
    store = stored[0]
    rows = json.loads(_ok(run_assay("runs", "--store", store, "-f", "json")))
    assert len(rows) >= 2
    for row in rows:
        low, high = row["task_success_ci"]
        assert low <= row["task_success"] <= high
        assert row["task_success_confidence"] == 0.95
    assert "95% CI [" in _ok(run_assay("runs", "--store", store))
