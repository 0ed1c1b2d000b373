"""The side-by-side counting benchmark runs on a small store and writes its section. No
timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import stored_counting  # noqa: E402
import stored_scale  # noqa: E402


def test_each_way_is_measured_and_the_section_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'assay.db'}"
    stored_scale.fill(url, 400)
    total, figures = stored_counting.measure(url, 1)
    assert total == 400
    assert len(figures) == 8 and all(cpu >= 0 for cpu in figures.values())
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n")
    assert stored_counting.main([url, "--repeat", "1", "--write", str(results)]) == 0
    text = results.read_text()
    assert text.count("<!-- begin stored_counting -->") == 1
    assert "| counted: records and judgments apart, two packed texts + numpy (assay) |" in text
    assert "| counted: records joined to judgments in SQLite, one packed text + numpy |" in text
    assert "400 case-trials" in text
