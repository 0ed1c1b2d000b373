"""Snapshots of the HTML and JUnit reports for the seed fixtures (n/a rates and synthetic
cases included).

Stable output: no clock in any renderer; assay's version is masked. After an intended
change, regenerate with ``ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden`` and review
the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.golden._inputs import INPUTS, golden_report

from assay.gates import evaluate_gates
from assay.render.html import render_html
from assay.render.junit import render_junit

HERE = Path(__file__).parent / "reports"


def _check(name: str, text: str, version: str) -> None:
    text = text.replace(version, "<ASSAY_VERSION>")
    golden = HERE / name
    if os.environ.get("ASSAY_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"{golden} missing: run with ASSAY_UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("dataset", sorted(INPUTS))
def test_html_snapshot(dataset: str) -> None:
    report = golden_report(dataset)
    _check(f"{dataset}.html", render_html(report), report.assay_version)


@pytest.mark.parametrize("dataset", sorted(INPUTS))
def test_junit_snapshot(dataset: str) -> None:
    report = golden_report(dataset)
    gates = evaluate_gates(report, ["task_success>=0.8", "errors==0", "missing==0"])
    _check(f"{dataset}.junit.xml", render_junit(report, gates), report.assay_version)
