"""``assay run --max-calls``/``--max-tokens`` end to end: the run is cut short, what was not
run is listed apart (not missing), the figures are over what ran, and the run exits 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import ROOT, RunAssay


def test_a_budget_cuts_the_run_short_and_says_so(tmp_path: Path, run_assay: RunAssay) -> None:
    shutil.copytree(ROOT / "examples" / "demo", tmp_path / "demo")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay(
        "run", "demo/v1.yaml", "--store", store, "--max-calls", "5", "-f", "json", cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    assert "cut short by its budget: 5 of 22 case-trials run" in done.stderr
    report = json.loads(done.stdout)
    budget = report["budget"]
    assert budget["reached"] and budget["max_calls"] == 5 and budget["calls"] == 5
    assert len(budget["not_run"]) == 17 and budget["case_trials"] == 22
    assert report["total"] == 5 and report["missing"] == 0
    assert report["task_success"]["denominator"] == 5
    assert "before the budget was reached, 5 of 22" in report["task_success"]["denominator_name"]


def test_max_cost_without_prices_is_refused(tmp_path: Path, run_assay: RunAssay) -> None:
    shutil.copytree(ROOT / "examples" / "demo", tmp_path / "demo")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", "demo/v1.yaml", "--store", store, "--max-cost", "1", cwd=tmp_path)
    assert done.returncode == 2
    assert "max_cost needs a price table" in done.stderr
