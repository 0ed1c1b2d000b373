"""The seed fixtures every golden test renders, as reports with a fixed assay version."""

from __future__ import annotations

from pathlib import Path

from assay import build_report, load_dataset, load_results
from assay.grading import grade_all
from assay.report import Report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
POLICY = ROOT / "examples" / "policy"
# The snapshots must not change with every release.
GOLDEN_VERSION = "0.0.0+golden"

INPUTS = {
    "policy": (POLICY / "policy.jsonl", POLICY / "results.jsonl"),
    "policy-e7": (POLICY / "policy-e7.jsonl", POLICY / "results.jsonl"),
    "abstain-synthetic": (
        HERE / "inputs" / "abstain.jsonl",
        HERE / "inputs" / "abstain-results.jsonl",
    ),
}


def golden_report(name: str) -> Report:
    """The report for one of ``INPUTS``, with a fixed assay version."""
    dataset_path, results_path = INPUTS[name]
    dataset = load_dataset(dataset_path)
    report = build_report(dataset, grade_all(dataset, load_results(results_path)))
    return report.model_copy(update={"assay_version": GOLDEN_VERSION})
