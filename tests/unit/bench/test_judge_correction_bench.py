"""bench/judge_correction.py: one setting simulated, and a section that names every
setting below the goal (never hides one)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import judge_correction  # noqa: E402


def test_one_setting_covers_and_the_naive_interval_does_not() -> None:
    rng = np.random.default_rng(3)
    row = judge_correction.simulate(0.3, 0.3, 30, 5000, 0.6, 400, rng)
    assert row.coverage >= 0.9
    # With a calibration of 30 labels its error dominates: the naive interval misses.
    assert row.naive < 0.6


def test_the_section_lists_the_settings_below_the_goal() -> None:
    rows = [
        judge_correction.Row(fa, 0.0, n, r, 0.6, 0.95, 0.5, 0.0)
        for fa in judge_correction.ERRORS
        for n in judge_correction.LABELS
        for r in judge_correction.RUNS
    ]
    rows[0] = judge_correction.Row(0.0, 0.0, 30, 50, 0.6, 0.912, 0.5, 0.0)
    text = judge_correction.section(rows, 10, 1.0)
    assert "Settings below 94% (1 of" in text
    assert "| 0% | 0% | 30 | 50 | 60% | 91.2% |" in text
