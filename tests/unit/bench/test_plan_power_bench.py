"""The power benchmark of ``assay plan`` writes its section between its markers, with one
row per setting and the goal judged from the figures (a small run: no goal asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import plan_power  # noqa: E402


def test_the_section_has_a_row_per_setting(tmp_path: Path) -> None:
    rows = [
        plan_power.Row("drop", "δ = 0.1", 100, 0.8, 0.81, 0.83, 10_000),
        plan_power.Row("noninferiority", "m = 0.1", 90, 0.8, 0.80, 0.775, 10_000),
    ]
    assert rows[0].met and not rows[1].met  # 2.5 points below the power asked
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n", encoding="utf-8")
    plan_power.write(results, plan_power.section(rows, 10_000, 1.0, "abc1234"))
    plan_power.write(results, plan_power.section(rows, 10_000, 1.0, "abc1234"))
    text = results.read_text(encoding="utf-8")
    assert text.count("<!-- begin plan-power -->") == 1
    assert "**Missed in 1.**" in text
    assert "| drop | δ = 0.1 | 100 | 80.0% | 81.0% | 83.0% | +2.00 | +3.00 |" in text


def test_the_simulation_agrees_with_the_exact_power(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DROPS", "FLIPS", "WIDTHS"):
        monkeypatch.setattr(plan_power, name, (0.1,))
    monkeypatch.setattr(plan_power, "NI_GRID", ((0.7, 0.1, 1, 0.0),))
    monkeypatch.setattr(plan_power, "POWERS", (0.8,))
    monkeypatch.setattr(plan_power, "TRIALS_GRID", ((0.8, 0.3, 3, 0.1),))
    rows, contrasts = plan_power.measure_all(2000)
    assert [r.question for r in rows] == [
        "rate",
        "rate",
        "drop",
        "noninferiority",
        "drop over trials",
    ]
    for r in rows:
        assert abs(r.gap_points) <= 4 * max(r.standard_error_points, 0.5), r
    (contrast,) = contrasts
    assert contrast.corrected < contrast.planned and contrast.simulated < 0.7
    text = plan_power.section(rows, 2000, 1.0, "abc1234", contrasts)
    assert "| δ = 0.1, rate 0.8, ρ = 0.3, 3 trials | " in text
