"""Snapshot tests of the text (no color), Markdown and JSON renderings of fixed reports.

To accept a deliberate change of output, regenerate the snapshots and review the diff:

    ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden
"""

from __future__ import annotations

import os

import pytest
from tests.golden._inputs import HERE, INPUTS, golden_report

from assay.render import render
from assay.report import Report

UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"
SUFFIX = {"text": "txt", "markdown": "md", "json": "json"}


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_rendering_matches_snapshot(name: str, fmt: str) -> None:
    rendered = render(golden_report(name), fmt, color=False)
    snapshot = HERE / "snapshots" / f"{name}.{SUFFIX[fmt]}"
    if UPDATE:
        snapshot.parent.mkdir(exist_ok=True)
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot}; run with ASSAY_UPDATE_GOLDEN=1"
    expected = snapshot.read_text(encoding="utf-8")
    assert rendered == expected, (
        f"{snapshot.name} changed; if intended, run ASSAY_UPDATE_GOLDEN=1 pytest tests/golden "
        "and review the diff"
    )


def test_json_snapshot_round_trips_through_the_model() -> None:
    for name in INPUTS:
        text = (HERE / "snapshots" / f"{name}.json").read_text(encoding="utf-8")
        assert Report.model_validate_json(text) == golden_report(name)


def test_text_never_shows_a_zero_percent_for_an_empty_denominator() -> None:
    text = render(golden_report("abstain-synthetic"), "text")
    line = next(x for x in text.splitlines() if x.startswith("Answered accuracy"))
    assert "n/a (no substantive answers)" in line
    assert "%" not in line


def test_synthetic_cases_are_apart_and_labelled() -> None:
    report = golden_report("abstain-synthetic")
    assert report.total == 3
    assert report.synthetic is not None
    assert report.synthetic.case_ids == ["S1"]
    for fmt in ("text", "markdown"):
        assert "SYNTHETIC — NOT A REAL RUN" in render(report, fmt)
