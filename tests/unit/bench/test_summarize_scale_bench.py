"""The library summarize benchmark runs its three shapes small, finds the counted and
graded summaries equal, and writes its section. No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import summarize_scale  # noqa: E402


def test_each_shape_is_written_as_described(tmp_path: Path) -> None:
    from assay.load import load_dataset, load_results

    for shape in summarize_scale.SHAPES:
        where = tmp_path / shape
        where.mkdir()
        cases, results = summarize_scale.write_shape(where, shape, 1_000)
        dataset, loaded = load_dataset(cases), load_results(results)
        trials = {r.trial for r in loaded.records}
        assert trials == ({1, 2, 3, 4, 5} if shape == "trials" else {1})
        assert len(dataset.cases) == (200 if shape == "trials" else 1_000)
        if shape == "mixed":
            assert any(c.synthetic for c in dataset.cases)
            assert any(c.accepted_facts for c in dataset.cases)
            assert any(
                r.outcome.kind == "answer" and r.outcome.fact is None for r in loaded.records
            )


def test_the_section_is_written_with_every_shape_equal(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n")
    assert summarize_scale.main(["-n", "2000", "--write", str(results)]) == 0
    text = results.read_text()
    assert text.count("<!-- begin summarize_scale -->") == 1
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| plain") or line.startswith("| trials") or line.startswith("| mixed")
    ]
    assert len(rows) == 3
    assert all(row.endswith("| yes |") for row in rows)
    assert "| 2,000 (400) |" in text
    assert "--processes 2" in text
    # five calls in each of the two processes, those of each process apart
    for row in rows:
        calls = row.split(" | ")[2]
        assert [len(part.split(", ")) for part in calls.split("; ")] == [5, 5], row
