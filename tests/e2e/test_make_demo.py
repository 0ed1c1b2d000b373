"""``make demo`` (scripts/demo.sh), run on a copy of the examples: it runs the assistant,
diagnoses E2, writes the HTML report and ends by saying where it is and what to try next."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT


def test_the_demo_ends_with_the_html_report_and_next_steps(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "demo.sh", tmp_path / "scripts" / "demo.sh")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_STORE"}
    env.update(NO_COLOR="1", COLUMNS="120")
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "demo.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Traceback" not in out + done.stderr
    assert "stage: context_assembly  (rule: evidence-chain)" in out  # E2 under v1
    for variant, stage in [
        ("e2-generation", "generation"),
        ("e2-context", "context_assembly"),
        ("e2-retrieval", "retrieval"),
    ]:
        assert re.search(rf"{variant}\s+E2 -> stage: {stage} ", out), variant
    ending = out[out.index("== Where to look next ==") :]
    assert "The HTML report of the v1 run: .assay/demo-v1.html" in ending
    assert (tmp_path / ".assay" / "demo-v1.html").read_text().lstrip().startswith("<!")
    compare = re.search(r"assay compare (\S+) (\S+) ", ending)
    assert compare and compare.group(1) != compare.group(2)
    assert "assay view" in ending and "docs/diagnose.md" in ending
