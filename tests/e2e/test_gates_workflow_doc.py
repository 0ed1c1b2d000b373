"""The GitHub Actions workflow in docs/gates.md runs as shown: its shell steps, in order."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "gates.md"


def _workflow() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.github/workflows/eval\.yml\n.*?)```", text, re.DOTALL)
    assert block is not None, "docs/gates.md lost its workflow"
    loaded: dict[str, Any] = yaml.safe_load(block.group(1))
    return loaded


def test_the_documented_workflow_runs_step_by_step(tmp_path: Path) -> None:
    steps = _workflow()["jobs"]["eval"]["steps"]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    bin_dir = Path(sys.executable).parent
    summary = tmp_path / "step-summary.md"
    env = {
        **{k: v for k, v in os.environ.items() if k != "ASSAY_STORE"},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    codes: dict[str, int] = {}
    for step in steps:
        if any(codes.values()):  # after a failed step, GitHub runs only `if: always()` ones
            assert step.get("if") == "always()", f"{step['name']} would not run"
        if "run" not in step or step["name"] == "Install assay":  # installed already
            continue
        done = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", step["run"]],
            cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300,
        )  # fmt: skip
        codes[step["name"]] = done.returncode
        if step["name"] == "Gate":
            # The example's four substantive answers cannot prove 60% accuracy at 95%.
            assert "FAIL  answered_accuracy.low>=0.6 allow_na" in done.stdout
            assert "GATE FAILED: 1 of 5 rule(s) failed" in done.stdout
    assert codes == {"Run the suite": 0, "Gate": 1, "HTML report": 0}
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    for name in upload["with"]["path"].split():
        assert (tmp_path / name).is_file(), f"{name} is not written by the steps before"
    assert "## ❌ assay gate: policy" in summary.read_text(encoding="utf-8")
    junit = next(s for s in steps if "junit" in s.get("uses", ""))
    assert (tmp_path / junit["with"]["report_paths"]).is_file()
