"""The kill/resume soak works: a run SIGKILLed and resumed ends with every case-trial
recorded once. The figures themselves are measured by ``bench/soak.py``, not here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import soak  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def test_a_killed_and_resumed_run_loses_and_repeats_nothing(tmp_path: Path) -> None:
    found = soak.soak(kills=2, cases=120, trials=2, fault_rate=0.3, seed=3)
    assert found.kills >= 1 and found.resumes >= 1
    assert (found.lost, found.duplicated, found.crashed) == (0, 0, [])
    assert found.status == "completed" and found.key_found == 0
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nother figures\n")
    soak.write_section(results, soak.section(found, ["python", "bench/soak.py"]))
    soak.write_section(results, soak.section(found, ["python", "bench/soak.py"]))
    text = results.read_text()
    assert text.count(soak.BEGIN) == 1 and text.startswith("# Benchmark results")
    assert f"| case-trials lost | {found.lost} |" in text
