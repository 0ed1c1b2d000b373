"""Snapshot tests of the text and Markdown that ``assay gate``, ``assay coverage``,
``assay matrix`` and ``assay calibrate`` write, from fixed inputs (the golden reports, the
example datasets, a hand-computed calibration).

To accept a deliberate change of output, regenerate the snapshots and review the diff:

    ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.golden._inputs import HERE, golden_report

from assay.cases import coverage_matrix
from assay.compare import MatrixReport, VariantInput, build_matrix
from assay.gates import evaluate_gates
from assay.load import load_dataset
from assay.render import render
from assay.render.gates import render_gates_markdown, render_gates_text
from assay.report._calibration import CalibrationReport

UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RULES = (
    "task_success >= 0.6",
    "answered_accuracy.low >= 0.9",
    "slices.missing.task_success >= 0.5",
    "statuses.error == 0",
)


def _check(rendered: str, name: str) -> None:
    snapshot = HERE / "snapshots" / name
    if UPDATE:
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot}; run with ASSAY_UPDATE_GOLDEN=1"
    assert rendered == snapshot.read_text(encoding="utf-8"), (
        f"{snapshot.name} changed; if intended, run ASSAY_UPDATE_GOLDEN=1 pytest tests/golden "
        "and review the diff"
    )


@pytest.mark.parametrize("name", ["policy", "abstain-synthetic"])
def test_gate_summaries_match_their_snapshots(name: str) -> None:
    report = golden_report(name)
    results = evaluate_gates(report, list(RULES))
    _check(render_gates_text(results), f"gate-{name}.txt")
    _check(render_gates_markdown(report, results), f"gate-{name}.md")
    _check(render_gates_text([]), "gate-none.txt")


@pytest.mark.parametrize(
    ("name", "dataset", "required"),
    [
        ("policy", EXAMPLES / "policy" / "policy.jsonl", ["missing", "exception", "absent"]),
        ("golden17", EXAMPLES / "golden17" / "golden17.synthetic.jsonl", []),
    ],
)
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_coverage_pages_match_their_snapshots(
    name: str, dataset: Path, required: list[str], fmt: str
) -> None:
    data = load_dataset(dataset)
    cov = coverage_matrix(data.cases, required=required, min_cases=3, dataset=data.name)
    suffix = "txt" if fmt == "text" else "md"
    _check(render(cov, fmt), f"coverage-{name}.{suffix}")


def _matrix() -> MatrixReport:
    from assay import build_report, load_dataset, load_results
    from assay.grading import grade_all

    dataset = load_dataset(EXAMPLES / "policy" / "policy.jsonl")
    variants = []
    for name, results, overrides in (
        ("base", "results.jsonl", {}),
        ("new | <b>", "results-new.jsonl", {"target.model": "m-2"}),
        ("again", "results.jsonl", {"target.model": "m-1", "grader": "structured"}),
    ):
        found = load_results(EXAMPLES / "policy" / results)
        report = build_report(dataset, grade_all(dataset, found))
        variants.append(VariantInput(name, f"run-{name[:3]}", "completed", overrides, report))
    built = build_matrix("mx-golden", variants)
    return built.model_copy(update={"assay_version": "0.0.0+golden"})


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_matrix_pages_match_their_snapshots(fmt: str) -> None:
    suffix = "txt" if fmt == "text" else "md"
    _check(render(_matrix(), fmt), f"matrix.{suffix}")


def _calibration() -> CalibrationReport:
    from tests.unit.report.test_calibration import _report

    report: CalibrationReport = _report(graders=["judge v1 | <b>"])
    return report


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_calibration_pages_match_their_snapshots(fmt: str) -> None:
    suffix = "txt" if fmt == "text" else "md"
    _check(render(_calibration(), fmt), f"calibration.{suffix}")
