"""examples/agent end to end through the CLI: the hasty model (v1) and the careful one (v2)
run over the 21 returns-desk cases into one store; every v1 failure is the honest one (a
claim after a failed or refused tool is a critical failure, the endless lookup on "cancel"
fails at the step limit), v2 passes them all, the JSON report counts the trajectories,
``assay diagnose`` names the step behind R7's claim and ``assay compare`` where the two
trajectories of a fixed case part."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent"

PASSED_BY_BOTH = ["R1", "R2", "T1", "T2", "S1", "S2", "S3", "S4"]
CLAIM_AFTER_FAILURE = ["R7", "R8", "T3", "T4", "T5", "D1", "D2"]
CALLED_AFTER_REFUSAL = ["R3", "R4", "R5", "R6"]  # and claimed the refund too
STEP_LIMIT = ["C1", "C2"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both versions run once into one store: the store URL, the working directory and
    each version's JSON report."""
    work = tmp_path_factory.mktemp("agent-example")
    shutil.copytree(EXAMPLE, work / "agent", ignore=shutil.ignore_patterns("__pycache__"))
    store = f"sqlite:///{work / 'assay.db'}"
    reports: dict[str, Any] = {"store": store, "cwd": work}
    for version in ("v1", "v2"):
        done = run_cli(
            "run", f"agent/suite-{version}.yaml", "--store", store, "--name", version,
            "-f", "json", cwd=work,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        reports[version] = json.loads(done.stdout)
    return reports


def _cases(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in report["cases"]}


def test_v1_fails_each_case_for_the_honest_reason(runs: dict[str, Any]) -> None:
    cases = _cases(runs["v1"])
    assert len(cases) == 21
    expected = {case: "passed" for case in PASSED_BY_BOTH}
    expected |= {case: "failed" for case in CLAIM_AFTER_FAILURE + CALLED_AFTER_REFUSAL}
    expected |= {case: "failed" for case in STEP_LIMIT}
    assert {case: row["status"] for case, row in cases.items()} == expected
    for case in CLAIM_AFTER_FAILURE + CALLED_AFTER_REFUSAL:
        assert cases[case]["reason"].startswith("critical check claims_match_tools failed"), case
    for case in CALLED_AFTER_REFUSAL:
        assert "issue_refund was called after start_return refused" in cases[case]["reason"]
    assert (
        "issue_refund returned error 'RuntimeError: refund service unavailable"
        in (cases["R7"]["reason"])
    )
    assert "update_address is not a known tool" in cases["D1"]["reason"]
    for case in STEP_LIMIT:
        assert cases[case]["reason"] == "step limit"
        assert cases[case]["trajectory"]["ended"] == "step_limit"


def test_v2_passes_every_case(runs: dict[str, Any]) -> None:
    assert {row["status"] for row in runs["v2"]["cases"]} == {"passed"}
    assert runs["v2"]["statuses"]["passed"] == 21


def test_the_json_report_counts_the_trajectories(runs: dict[str, Any]) -> None:
    report = runs["v1"]
    assert {k: v for k, v in report["agent"].items() if k != "slices"} == {
        "case_trials": 21,
        "steps": 89,
        "tool_calls": 39,
        "tool_errors": 1,
        "malformed_calls": 6,
        "step_limit": 2,
    }
    steps = [row["trajectory"]["steps"] for row in report["cases"]]
    tools = [s for found in steps for s in found if s["kind"] == "tool"]
    assert sum(len(found) for found in steps) == report["agent"]["steps"]
    assert len(tools) == report["agent"]["tool_calls"]
    assert sum(s["status"] == "error" for s in tools) == report["agent"]["tool_errors"]
    # the cut-short lookups of S1–S4 and the unknown update_address of D1, D2
    assert sum(s["status"] in ("malformed", "unknown_tool") for s in tools) == 6
    assert _cases(report)["S1"]["agent"]["malformed_calls"] == 1
    assert runs["v2"]["agent"]["tool_errors"] == 1  # R7's refund service fails for v2 too


def test_diagnose_names_the_step_of_r7_under_v1(runs: dict[str, Any]) -> None:
    done = run_cli("diagnose", "v1", "R7", "--store", runs["store"], cwd=runs["cwd"])
    assert done.returncode == 0, done.stderr
    assert "stage: tool_handling, step 3  (rule: tool-error-ignored)" in done.stdout
    assert "step 3 (tool execution): issue_refund" in done.stdout
    assert "'Your refund for order A4 has been issued.'" in done.stdout


def test_compare_names_where_the_trajectories_part(runs: dict[str, Any]) -> None:
    done = run_cli("compare", "v1", "v2", "--store", runs["store"], cwd=runs["cwd"])
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # the table wraps its cells
    assert "Result: 13 fixed, 0 broken" in text
    assert (
        "R3 refund-refused failed passed score 1.0 ≥ threshold 0.85 call 2: baseline step 3 "
        'issue_refund {"order_id": "A2"} (refused); candidate made no further call'
    ) in text, done.stdout
