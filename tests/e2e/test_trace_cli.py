"""``assay trace`` end to end: several trials, an unknown case, a run without spans."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES, RunAssay

V1 = EXAMPLES / "demo" / "v1.yaml"


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'assay.db'}"


def run(run_assay: RunAssay, store: str, *extra: str) -> str:
    done = run_assay("run", V1, "--store", store, "--ids", "E2,E5", *extra)
    assert done.returncode == 0, done.stderr
    match = re.match(r"run (\S+) \(completed\)", done.stdout)
    assert match, done.stdout[:200]
    return match.group(1)


def test_each_trial_has_its_own_trace(run_assay: RunAssay, store: str) -> None:
    run_id = run(run_assay, store, "--trials", "2")
    first = run_assay("trace", run_id, "E2", "--store", store, "--format", "json")
    second = run_assay("trace", run_id, "E2", "--trial", "2", "--store", store, "-f", "json")
    assert first.returncode == second.returncode == 0, second.stderr
    ones, twos = json.loads(first.stdout)["spans"], json.loads(second.stdout)["spans"]
    assert json.loads(second.stdout)["trial"] == 2
    assert {s["trial"] for s in ones} == {1} and {s["trial"] for s in twos} == {2}
    assert {s["trace_id"] for s in ones}.isdisjoint({s["trace_id"] for s in twos})
    text = run_assay("trace", run_id, "E2", "--trial", "2", "--store", store)
    assert text.stdout.startswith(f"trace of E2 (trial 2) in run {run_id}")
    assert "assay.judgment.reason = expected fact 'custom_excluded'" in text.stdout
    assert re.search(r"assay\.config\.version = sha256:[0-9a-f]{12}…\n", text.stdout)
    beyond = run_assay("trace", run_id, "E2", "--trial", "3", "--store", store)
    assert beyond.returncode == 2 and beyond.stdout == ""
    assert "has trials 1 to 2" in beyond.stderr


def test_an_unknown_case_suggests_the_closest_and_exits_2(run_assay: RunAssay, store: str) -> None:
    run_id = run(run_assay, store)
    for typed in ("E22", "e2"):
        done = run_assay("trace", run_id, typed, "--store", store)
        assert done.returncode == 2 and done.stdout == ""
        assert f"has no case '{typed}' (did you mean \"E2\"?)" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_run_without_spans_says_tracing_was_off(run_assay: RunAssay, store: str) -> None:
    run_id = run(run_assay, store, "--no-trace")
    done = run_assay("trace", run_id, "E2", "--store", store)
    assert done.returncode == 2 and done.stdout == ""
    assert "recorded no spans at all: it ran with tracing off" in done.stderr
