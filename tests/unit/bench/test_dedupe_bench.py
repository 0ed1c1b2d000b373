"""The dedupe benchmark's generator and results splicing work. No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import dedupe  # noqa: E402


def test_the_generator_is_seeded_and_plants_copies_after_their_originals() -> None:
    cases, planted = dedupe.generate(420)
    assert (cases, planted) == dedupe.generate(420)
    assert len(cases) == 420 and len(planted) == 420 - int(420 / 1.05)
    order = {c["id"]: i for i, c in enumerate(cases)}
    for pair in planted:
        original, copy = sorted(pair, key=lambda x: x.startswith("copy"))
        assert order[original] < order[copy]


def test_the_section_replaces_itself_in_the_results_file(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nother figures\n")
    first = f"{dedupe.BEGIN}\nold\n{dedupe.END}"
    dedupe.update(results, first)
    dedupe.update(results, f"{dedupe.BEGIN}\nnew\n{dedupe.END}")
    text = results.read_text()
    assert text.count(dedupe.BEGIN) == 1 and "new" in text and "old" not in text
    assert text.startswith("# Benchmark results\n\nother figures")
