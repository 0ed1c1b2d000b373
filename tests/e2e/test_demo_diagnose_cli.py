"""End to end: `assay run` on the demo's suites, then `assay trace` and `assay diagnose`."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def run_suite(run_assay: RunAssay, config: str, store: str) -> str:
    done = run_assay("run", DEMO / f"{config}.yaml", "--store", store)
    assert done.returncode == 0, done.stderr
    match = re.match(r"run (\S+) \(completed\)", done.stdout)
    assert match, done.stdout[:200]
    return match.group(1)


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'assay.db'}"


@pytest.mark.parametrize(
    ("config", "stage"),
    [
        ("e2-generation", "generation"),
        ("e2-context", "context_assembly"),
        ("e2-retrieval", "retrieval"),
    ],
)
def test_each_e2_variant_is_diagnosed_at_its_stage(
    run_assay: RunAssay, store: str, config: str, stage: str
) -> None:
    run_id = run_suite(run_assay, config, store)
    done = run_assay("diagnose", run_id, "E2", "--format", "json", "--store", store)
    assert done.returncode == 0, done.stderr
    finding = json.loads(done.stdout)
    assert set(finding) == {"case", "status", "stage", "evidence", "next_step"}
    assert (finding["case"], finding["status"], finding["stage"]) == ("E2", "failed", stage)
    assert finding["evidence"] and finding["next_step"]


def test_v1_run_trace_and_diagnose_all(run_assay: RunAssay, store: str) -> None:
    run_id = run_suite(run_assay, "v1", store)
    shown = run_assay("trace", run_id, "E2", "--store", store)
    assert shown.returncode == 0, shown.stderr
    for name in ("assay.request", "retrieval", "fetch_section ∥", "context_assembly", "chat"):
        assert name in shown.stdout
    assert "assay.context.dropped = acme/custom-exception" in shown.stdout

    grouped = run_assay("diagnose", run_id, "--all", "--format", "json", "--store", store)
    assert grouped.returncode == 0, grouped.stderr
    groups = {
        g["stage"]: {c["case"] for c in g["cases"]} for g in json.loads(grouped.stdout)["groups"]
    }
    assert groups["context_assembly"] >= {"E2", "E6"}
    assert "E5" in groups["retrieval"]
    assert "E4" in groups["generation"]
    assert groups["tool_handling"] == {"T2", "T3", "T4"}
    text = run_assay("diagnose", run_id, "--all", "--store", store)
    assert "11 of 22 case-trials not passed" in text.stdout


def test_unknown_case_is_a_clear_error(run_assay: RunAssay, store: str) -> None:
    run_id = run_suite(run_assay, "v3", store)
    done = run_assay("diagnose", run_id, "E22", "--store", store)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "has no case 'E22'" in done.stderr and "Traceback" not in done.stderr
    neither = run_assay("diagnose", run_id, "--store", store)
    assert neither.returncode == 2 and "--all" in neither.stderr
