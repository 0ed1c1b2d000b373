"""The returns-desk suite (examples/agent/suite-real.yaml) on a real local model:
SmolLM2-135M served by llama-cpp-python with the ``chatml-function-calling`` chat format
(tests/real_model.py). Whatever the small model does, every case-trial ends in one honest
status, never a pass with the final state its case expects unmet; its trajectory, tool
errors and malformed calls are recorded, and the report's counts are the trajectories'."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import RunAssay
from tests.real_model import RealModel

pytestmark = pytest.mark.real_model

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent"
# one case of each kind, to keep the run to minutes on two cores
IDS = "R1,R3,R7,T1,S1,C1,D1"
HONEST = {"passed", "failed", "error", "ungraded"}
FAILED_TOOL = {"error", "refused", "malformed", "unknown_tool"}


def _expected_states(case: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in case.get("expect") or []:
        found |= item.get("state_equals") or {}
    return found


def _at(state: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(state, dict) or key not in state:
            return KeyError(path)
        state = state[key]
    return state


def test_every_case_trial_on_the_real_model_ends_in_one_honest_status(
    real_tool_model: RealModel, tmp_path: Path, run_assay: RunAssay
) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "agent", ignore=shutil.ignore_patterns("__pycache__"))
    done = run_assay(
        "run", str(tmp_path / "agent" / "suite-real.yaml"), "--ids", IDS,
        "--store", f"sqlite:///{tmp_path / 'assay.db'}",
        "--set", f"target.model.base_url={real_tool_model.base_url}", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    matrix = json.loads(done.stdout)
    run_id = matrix["variants"][0]["run_id"]
    shown = run_assay(
        "report", run_id, "--store", f"sqlite:///{tmp_path / 'assay.db'}", "-f", "json"
    )
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    rows = report["cases"]
    assert sorted(r["id"] for r in rows) == sorted(IDS.split(","))
    cases = {
        c["id"]: c for c in map(json.loads, (EXAMPLE / "returns.jsonl").read_text().splitlines())
    }
    steps = tool_calls = tool_errors = malformed = step_limit = 0
    for row in rows:
        assert row["status"] in HONEST, row
        trajectory = row.get("trajectory")
        assert trajectory is not None, row["id"]
        assert trajectory["ended"] in ("answered", "step_limit", "model_error", "timeout")
        tools = [s for s in trajectory["steps"] if s["kind"] == "tool"]
        assert all(s["status"] in FAILED_TOOL | {"ok"} for s in tools)
        assert row["agent"]["tool_calls"] == len(tools)
        steps += len(trajectory["steps"])
        tool_calls += len(tools)
        tool_errors += sum(s["status"] == "error" for s in tools)
        malformed += sum(s["status"] in ("malformed", "unknown_tool") for s in tools)
        for step in tools:
            if step["status"] == "malformed" and step["call"]["arguments"] is None:
                assert step["call"]["raw_arguments"] is not None  # kept as the model sent it
        if trajectory["ended"] == "step_limit":
            step_limit += 1
            assert (row["status"], row["reason"]) == ("failed", "step limit")
        if row["status"] == "passed":
            after = trajectory.get("state_after")
            for path, value in _expected_states(cases[row["id"]]).items():
                assert _at(after, path) == value, (row["id"], path)
    assert report["agent"]["case_trials"] == len(rows)
    assert (
        report["agent"]["steps"],
        report["agent"]["tool_calls"],
        report["agent"]["tool_errors"],
        report["agent"]["malformed_calls"],
        report["agent"].get("step_limit", 0),
    ) == (steps, tool_calls, tool_errors, malformed, step_limit)
    statuses = report["statuses"]
    assert sum(statuses[s] for s in HONEST) == len(rows) and statuses["missing"] == 0
