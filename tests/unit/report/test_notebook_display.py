"""Every report object shows itself in a notebook (a scoped HTML fragment, no script) and
through rich (the text the CLI prints), with the same figures as its JSON."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console
from tests.unit.compare.helpers import case, side
from tests.unit.compare.test_matrix_schema import _variant
from tests.unit.report.conftest import seed_report
from tests.unit.report.test_calibration import _report as calibration_report
from tests.unit.trend.test_trend import SERIES

from assay.cases import Case, Dataset
from assay.compare import build_matrix, compare_runs
from assay.diagnose import Diagnosis, Finding
from assay.grading import grade_all
from assay.outcomes import Answer, Record
from assay.render import render
from assay.render.notebook import FRAGMENT_CLASS
from assay.report import build_report
from assay.trend import build_trend

CASES = [case(f"E{i}", "s") for i in range(1, 5)]
FINDING = Finding(
    case="E2",
    status="failed",
    stage="context_assembly",
    evidence=("acme/custom-exception was selected but is missing from the context",),
    next_step="Fix context assembly.",
    rule="evidence-chain",
)


def _objects() -> dict[str, object]:
    right = {c: case(c).expected_fact or "" for c in ("A", "B", "C")}
    return {
        "report": seed_report(),
        "comparison": compare_runs(
            side(CASES, {"E1": "failed", "E2": "passed", "E3": "passed", "E4": "failed"}),
            side(CASES, {"E1": "passed", "E2": "passed", "E3": "failed", "E4": "failed"}),
        ),
        "matrix": build_matrix(
            "mx-1", [_variant("x", {**right, "A": "nope"}), _variant("y", right)]
        ),
        "trend": build_trend("nightly", SERIES),
        "calibration": calibration_report(),
        "finding": FINDING,
        "diagnosis": Diagnosis("r-1", (FINDING,)),
    }


KINDS = list(_objects())


@pytest.mark.parametrize("kind", KINDS)
def test_each_object_is_a_scoped_fragment_without_script(kind: str) -> None:
    html = _objects()[kind]._repr_html_()  # type: ignore[attr-defined]
    assert html.startswith(f'<div class="{FRAGMENT_CLASS}">')
    assert html.rstrip().endswith("</div>")
    for absent in ("<script", "<html", "<body", "<head", "<link", "<iframe"):
        assert absent not in html.lower(), absent
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style is not None
    selectors = re.findall(r"([^{}]+)\{", re.sub(r"\{[^{}]*\}", "{", style[1]))
    for group in selectors:
        for selector in group.split(","):
            assert selector.strip().startswith(f".{FRAGMENT_CLASS}"), selector
    assert "<table>" in html or "<p>" in html


def _cells(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    return [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)]
        for r in rows
    ]


def test_the_report_s_fragment_shows_the_json_report_s_figures() -> None:
    report = seed_report()
    data = json.loads(render(report, "json"))
    rows = {row[0]: row for row in _cells(report._repr_html_())}
    for label, key in (
        ("Task success", "task_success"),
        ("Answer coverage", "answer_coverage"),
        ("Answered accuracy", "answered_accuracy"),
    ):
        rate = data[key]
        lo, hi = rate["ci"]
        assert rows[label][1] == f"{rate['numerator']}/{rate['denominator']}"
        assert rows[label][2] == f"{rate['value'] * 100:.1f}%"
        assert rows[label][3] == f"[{lo * 100:.1f}%, {hi * 100:.1f}%]"
    for name, sl in data["slices"].items():
        ts = sl["task_success"]
        assert rows[name][1] == f"{ts['numerator']}/{ts['denominator']}"


def test_data_in_a_fragment_is_escaped() -> None:
    hostile = Case(
        id="<script>alert(1)</script>",
        slice="<b>s</b>",
        question="q",
        expected_behavior="answer",
        expected_fact="f",
    )
    data = Dataset(name="d", cases=(hostile,))
    report = build_report(
        data, grade_all(data, [Record(case_id=hostile.id, outcome=Answer(fact="x"))])
    )
    html = report._repr_html_()
    assert "<script>" not in html and "<b>s</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize("kind", KINDS)
def test_rich_prints_what_the_cli_prints(kind: str) -> None:
    obj = _objects()[kind]
    console = Console(file=io.StringIO(), width=250, color_system=None)  # wraps no line
    console.print(obj)
    assert console.file.getvalue() == render(obj, "text")  # type: ignore[arg-type]


def test_rich_colours_as_the_cli_does() -> None:
    report = seed_report()
    console = Console(file=io.StringIO(), width=250, color_system="standard", force_terminal=True)
    console.print(report)
    assert console.file.getvalue() == render(report, "text", color=True)
