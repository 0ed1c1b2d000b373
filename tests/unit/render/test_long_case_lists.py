"""A list of hundreds of cases in the composite and compare text and Markdown shows its
first rows and then how many more there are; the count is never dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.compare.helpers import case, side
from tests.unit.report.test_composite_report import report_for

from assay.compare import compare_runs
from assay.render._lists import LIST_ROWS, more_note
from assay.render.comparison import render_comparison
from assay.render.composite import render_composite

CHECKS = (
    "answer_not_empty",
    "content_present",
    "content_absent",
    "citation_valid",
    "citation_supports",
    "abstention_correct",
    "format_valid",
)


def _composite_inputs(tmp_path: Path, n: int) -> tuple[Path, Path]:
    dataset, checks = tmp_path / "cases.jsonl", tmp_path / "checks.jsonl"
    with dataset.open("w") as d, checks.open("w") as c:
        for i in range(n):
            d.write(
                json.dumps(
                    {
                        "id": f"L{i:04d}",
                        "slice": "s",
                        "question": "q?",
                        "expected_behavior": "answer",
                        "expected_fact": "f",
                    }
                )
                + "\n"
            )
            verdicts: dict[str, object] = {name: True for name in CHECKS}
            if i % 4:  # three in four fail a check
                verdicts["content_present"] = {"passed": False, "reason": f"missing part {i}"}
            c.write(json.dumps({"id": f"L{i:04d}", "checks": verdicts}) + "\n")
    return dataset, checks


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_long_composite_report_caps_its_case_lists(tmp_path: Path, fmt: str) -> None:
    report = report_for(*_composite_inputs(tmp_path, 400))
    failing = [r for r in report.cases if r.verdict != "pass" or r.strict_verdict != "pass"]
    assert len(report.cases) == 400 and len(failing) == 300
    out = render_composite(report, fmt)
    assert more_note(400) in out  # the per-case table: 100 shown, 300 more
    assert more_note(300) in out  # the reasons: 100 shown, 200 more
    assert "L0099" in out and "L0399" not in out
    assert "400" in out  # the figures still count every case


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_short_composite_report_lists_every_case(tmp_path: Path, fmt: str) -> None:
    out = render_composite(report_for(*_composite_inputs(tmp_path, 40)), fmt)
    assert "more (see --format json)" not in out
    assert "L0039" in out


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_comparison_with_hundreds_of_broken_cases_caps_the_list(fmt: str) -> None:
    cases = [case(f"B{i:04d}") for i in range(350)]
    base = side(cases, {c.id: "passed" for c in cases}, "base")
    cand = side(cases, {c.id: "failed" if i < 320 else "passed" for i, c in enumerate(cases)})
    out = render_comparison(compare_runs(base, cand), fmt)
    assert "Newly broken (320)" in out
    assert more_note(320) in out
    assert f"B{LIST_ROWS - 1:04d}" in out and "B0319" not in out
    few = side(cases, {c.id: "failed" if i < 30 else "passed" for i, c in enumerate(cases)})
    short = render_comparison(compare_runs(base, few), fmt)
    assert "Newly broken (30)" in short and "B0029" in short
    assert "more (see --format json)" not in short


def test_the_json_comparison_keeps_every_case() -> None:
    cases = [case(f"B{i:04d}") for i in range(350)]
    base = side(cases, {c.id: "passed" for c in cases}, "base")
    cand = side(cases, {c.id: "failed" for c in cases})
    data = json.loads(render_comparison(compare_runs(base, cand), "json"))
    assert len(data["broken"]) == 350
