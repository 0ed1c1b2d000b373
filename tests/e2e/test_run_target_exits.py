"""A target that wraps a CLI and calls ``sys.exit(2)`` (argparse on bad arguments) fails
its case-trials, never the run: assay's exit code stays assay's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

APP = """
import argparse


def answer(case):
    parser = argparse.ArgumentParser(prog="legacy-cli")
    parser.add_argument("--mode", choices=["fast"], required=True)
    mode = "slow" if case.id in ("E1", "E4") else "fast"
    parser.parse_args(["--mode", mode])  # exits 2 on "slow", as argparse does
    return {"kind": "abstain"} if case.expected_behavior == "abstain" else (
        {"kind": "answer", "fact": case.expected_fact})
"""


def test_sys_exit_in_a_target_is_an_error_outcome_and_assay_exits_on_its_own_terms(
    tmp_path: Path,
) -> None:
    (tmp_path / "legacy_app.py").write_text(APP)
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {ROOT / 'examples' / 'policy' / 'policy.jsonl'}\n"
        "target: {type: function, callable: legacy_app:answer}\ntrials: 2\ntrace: false\n"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "assay", "run", str(suite), "--format", "json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # not argparse's 2
    assert "Traceback" not in done.stderr and "usage: legacy-cli" in done.stderr
    report = json.loads(done.stdout)
    assert report["total"] == 12 and report["statuses"]["error"] == 4
    errors = [c for c in report["cases"] if c["status"] == "error"]
    assert {c["id"] for c in errors} == {"E1", "E4"}
