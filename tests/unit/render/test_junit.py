"""JUnit output: valid against the JUnit XML schema, one test case per rule and case-trial."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from tests.unit.report.conftest import synthetic_report

from assay.gates import evaluate_gates
from assay.render.gates import render_gates_markdown, render_gates_text
from assay.render.junit import render_junit
from assay.report import Report

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[2] / "schemas" / "junit-10.xsd")


def _cases(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml)
    return {c.get("name", ""): c for c in root.iter("testcase")}


def test_valid_and_one_case_per_rule_and_case(report_e7: Report) -> None:
    gates = evaluate_gates(report_e7, ["task_success>=0.8", "errors==1"])
    xml = render_junit(report_e7, gates)
    SCHEMA.validate(xml)
    cases = _cases(xml)
    assert set(cases) == {"task_success>=0.8", "errors==1", *(f"E{i}" for i in range(1, 8))}
    assert cases["task_success>=0.8"].find("failure") is not None
    assert list(cases["errors==1"]) == []
    assert cases["E1"].find("failure") is None and cases["E1"].find("error") is None
    assert cases["E2"].find("failure") is not None
    assert cases["E5"].find("error") is not None
    missing = cases["E7"].find("error")
    assert missing is not None and missing.get("type") == "missing"
    root = ET.fromstring(xml)
    assert root.get("tests") == "9"
    assert root.get("failures") == str(report_e7.statuses.failed + 1)
    assert root.get("errors") == str(report_e7.statuses.error + report_e7.statuses.missing)


def test_control_characters_and_markup_survive(report: Report) -> None:
    row = report.cases[1].model_copy(
        update={"reason": 'bad \x00\x1b "quote" <tag> & ]]>', "text": "\x07bell"}
    )
    nasty = report.model_copy(update={"cases": [report.cases[0], row, *report.cases[2:]]})
    xml = render_junit(nasty)
    SCHEMA.validate(xml)
    failure = _cases(xml)["E2"].find("failure")
    assert failure is not None
    assert failure.get("message") == 'bad \ufffd\ufffd "quote" <tag> & ]]>'


def test_synthetic_cases_have_their_own_suite() -> None:
    report = synthetic_report()
    xml = render_junit(report)
    SCHEMA.validate(xml)
    suites = {s.get("name", ""): s for s in ET.fromstring(xml).iter("testsuite")}
    synthetic = [name for name in suites if name.startswith("SYNTHETIC — NOT A REAL RUN")]
    assert len(synthetic) == 1
    assert [c.get("name") for c in suites[synthetic[0]].iter("testcase")] == ["S1"]


@pytest.mark.parametrize("rules", [["task_success>=0.8"], ["task_success>=0.1"], []])
def test_markdown_and_text_name_each_rule(report: Report, rules: list[str]) -> None:
    gates = evaluate_gates(report, rules)
    md = render_gates_markdown(report, gates)
    text = render_gates_text(gates)
    for rule in rules:
        assert f"`{rule}`" in md and rule in text
    assert "2/6" in md and "(adds up)" in md
    verdict = "GATE FAILED" if any(not g.passed for g in gates) else "passed"
    verdict = verdict if rules else "no gate rules given"
    assert verdict in md.splitlines()[3] and verdict in text.splitlines()[-1]


def test_dev_and_held_out_are_each_their_own_suite(report_e7: Report) -> None:
    from assay.report._model import HeldoutNote, SplitBlock

    def block(split: str, ids: list[str]) -> SplitBlock:
        return SplitBlock(
            split=split,
            total=len(ids),
            success=0,
            statuses=report_e7.statuses,
            task_success=report_e7.task_success,
            answer_coverage=report_e7.answer_coverage,
            answered_accuracy=report_e7.answered_accuracy,
            case_ids=ids,
        )

    split = report_e7.model_copy(
        update={
            "splits": [
                block("dev", ["E1", "E2", "E3", "E4"]),
                block("heldout", ["E5", "E6", "E7"]),
            ],
            "heldout": HeldoutNote(cases=3, runs=4),
        }
    )
    xml = render_junit(split, evaluate_gates(split, ["errors==1"]))
    SCHEMA.validate(xml)
    suites = {s.get("name", ""): s for s in ET.fromstring(xml).iter("testsuite")}
    dev = suites[f"assay cases: {split.dataset.name} (dev)"]
    held = suites[f"assay cases: {split.dataset.name} (HELD-OUT)"]
    assert [c.get("name") for c in dev.iter("testcase")] == ["E1", "E2", "E3", "E4"]
    assert [c.get("name") for c in held.iter("testcase")] == ["E5", "E6", "E7"]
    props = {p.get("name"): p.get("value") for p in held.iter("property")}
    assert props["split"] == "heldout" and props["heldout.runs"] == "4"
    assert props["heldout"] == "HELD-OUT RESULT" and props["heldout.cases"] == "3"
    assert "heldout" not in {p.get("name") for p in dev.iter("property")}
    assert ET.fromstring(xml).get("tests") == "8"  # 7 cases, 1 rule: none lost or doubled
