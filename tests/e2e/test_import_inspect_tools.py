"""`assay import inspect` of a tool-using agent's log, written by the installed inspect_ai
during the test: its tool calls become trajectories that survive the store."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.interop_logs import DATA

from assay.outcomes import trajectory_of
from assay.store import open_store

WRITER = DATA / "write_inspect_agent_log.py"


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai is not installed (pip install 'assay[interop]')",
)
def test_the_tool_calls_inspect_records_are_the_stored_trajectories(
    run_assay_process: RunAssay, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, str(WRITER), str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    store = f"sqlite:///{tmp_path / 'a.db'}"
    imported = run_assay_process("import", "inspect", said["log"], "--store", store)
    assert imported.returncode == 0, imported.stderr
    (run_id,) = re.findall(r"as run (\S+):", imported.stdout)

    records = {r.case_id: r for r in open_store(store).records(run_id)}
    for sample in said["samples"]:  # what inspect's own reader finds, sample by sample
        trajectory = trajectory_of(records[sample["id"]])
        assert trajectory is not None
        assert [s.tool for s in trajectory.tool_steps] == sample["calls"]
        failed = [s.status for s in trajectory.tool_steps if s.status != "ok"]
        assert len(failed) == len(sample["tool_errors"])
    refund = trajectory_of(records["refund"])
    assert refund is not None
    assert [(s.tool, s.status) for s in refund.tool_steps] == [
        ("lookup_order", "ok"),
        ("issue_refund", "error"),
    ]
    unknown = trajectory_of(records["unknown"])
    assert unknown is not None and unknown.malformed_calls == 1
