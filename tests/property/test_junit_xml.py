"""The JUnit XML is written as it is read, byte for byte as ``xml.etree.ElementTree``
writes the same document built whole and indented: any text in any field (markup, quotes,
line breaks, tabs, characters XML cannot carry), trials, splits, synthetic cases, gate
rules; rows held as value tuples give the same text as the rows themselves."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.unit.report.conftest import seed_report, synthetic_report

from assay.gates import GateResult, evaluate_gates
from assay.render._format import block_bounds_lines
from assay.render.junit import (
    _PROBLEM,
    _bound_properties,
    _clean,
    _figure_properties,
    render_junit,
)
from assay.report import Report
from assay.report._model import HeldoutNote, SplitBlock
from assay.report._rows import ROW_FIELDS, CaseRows

_TEXT = st.text(st.sampled_from("ab <>&\"'\n\r\t\x00\x07\x1b\ufffe\u00e9\u2028]]>"), max_size=10)


def _element_tree_junit(report: Report, gates: list[GateResult]) -> str:
    """The document as ElementTree writes it, built whole (the XML's definition)."""
    root = ET.Element("testsuites", {"name": _clean(f"assay {report.dataset.name}")})
    suites = []

    def suite(name: str, props: list[tuple[str, str | None]] | None) -> ET.Element:
        element = ET.SubElement(root, "testsuite", {"name": _clean(name)})
        if props is not None:
            holder = ET.SubElement(element, "properties")
            for key, value in props:
                if value is not None:
                    ET.SubElement(holder, "property", {"name": key, "value": _clean(value)})
        suites.append(element)
        return element

    def problem(parent: ET.Element, kind: str, kind_type: str, message: str, text: str) -> None:
        element = ET.SubElement(parent, kind, {"type": kind_type, "message": _clean(message)})
        element.text = _clean(text)

    def case(parent: ET.Element, row: Any) -> None:
        name = row.id if report.trials == 1 else f"{row.id} #{row.trial}"
        classname = _clean(f"{report.dataset.name}.{row.slice}")
        element = ET.SubElement(parent, "testcase", {"classname": classname, "name": _clean(name)})
        kind = _PROBLEM.get(row.status)
        if kind is not None:
            lines = [
                f"question: {row.question}",
                f"expected: {row.expected_behavior}"
                + (f" {row.expected_fact}" if row.expected_fact else ""),
                f"outcome: {row.outcome or 'none recorded'}" + (f" {row.fact}" if row.fact else ""),
                *([f"text: {row.text}"] if row.text else []),
                f"status: {row.status}",
                f"reason: {row.reason}",
                f"grader: {row.grader}",
            ]
            problem(element, kind, row.status, row.reason, "\n".join(lines))

    if gates:
        held = suite("assay gates", None)
        for result in gates:
            element = ET.SubElement(
                held, "testcase", {"classname": "assay.gate", "name": _clean(result.rule.text)}
            )
            if not result.passed:
                problem(element, "failure", "gate", result.message, result.message)
    head = [("dataset.version", report.dataset.version), ("assay.version", report.assay_version)]
    head.append(("run.id", report.run_id))
    head += _figure_properties(report)  # the figures' words, as every format says them
    real = [row for row in report.cases if not row.synthetic]
    for block in report.splits or []:
        label = "dev" if block.split == "dev" else "HELD-OUT"
        rate = block.task_success
        props = [
            ("split", block.split),
            ("split.task_success", f"{rate.numerator}/{rate.denominator}"),
            ("split.task_success.denominator", rate.denominator_name),
        ]
        said = block_bounds_lines(report, block)
        props += _bound_properties(block.unknown_bounds, said, "split.")
        note = report.heldout
        if block.split == "heldout" and note is not None:
            props += [("heldout", note.banner), ("heldout.cases", str(note.cases))]
            props.append(("heldout.runs", str(note.runs) if note.runs is not None else None))
        part = suite(f"assay cases: {report.dataset.name} ({label})", head + props)
        for row in real:
            if row.id in block.case_ids:
                case(part, row)
    if not report.splits:
        whole = suite(f"assay cases: {report.dataset.name}", head)
        for row in real:
            case(whole, row)
    if report.synthetic is not None:
        apart = suite(f"{report.synthetic.banner}: {report.dataset.name}", None)
        for row in report.cases:
            if row.synthetic:
                case(apart, row)
    for element in suites:
        cases = element.findall("testcase")
        element.set("tests", str(len(cases)))
        element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
        element.set("errors", str(sum(c.find("error") is not None for c in cases)))
        element.set("skipped", "0")
        element.set("time", "0")
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    ET.indent(root)
    head_text = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated by assay -->\n'
    return head_text + ET.tostring(root, "unicode") + "\n"


_FIELDS = ("id", "slice", "question", "expected_fact", "fact", "text", "reason", "grader")
_STATUSES = st.sampled_from(["passed", "failed", "error", "missing", "ungraded"])


@settings(max_examples=150, deadline=None)
@given(
    base=st.sampled_from(["seed", "synthetic"]),
    changes=st.lists(
        st.fixed_dictionaries({name: _TEXT for name in _FIELDS} | {"status": _STATUSES}),
        min_size=1,
        max_size=6,
    ),
    trials=st.integers(1, 3),
    split=st.booleans(),
    rules=st.lists(st.sampled_from(["errors==1", "task_success>=0.5", "missing<=0"]), max_size=2),
    name=_TEXT,
)
def test_streamed_junit_equals_element_tree(
    base: str,
    changes: list[dict[str, Any]],
    trials: int,
    split: bool,
    rules: list[str],
    name: str,
) -> None:
    report = seed_report() if base == "seed" else synthetic_report()
    rows = [
        row.model_copy(
            update={k: (v or "x") if k in ("id", "slice") else v for k, v in change.items()}
            | {"trial": 1 + i % trials}
        )
        for i, (row, change) in enumerate(zip(report.cases, changes, strict=False))
    ]
    update: dict[str, Any] = {
        "cases": rows,
        "trials": trials,
        "dataset": report.dataset.model_copy(update={"name": name}),
    }
    if split:
        ids = [row.id for row in rows]

        def block(part: str, chosen: list[str]) -> SplitBlock:
            return SplitBlock(
                split=part,
                total=len(chosen),
                success=0,
                statuses=report.statuses,
                task_success=report.task_success,
                answer_coverage=report.answer_coverage,
                answered_accuracy=report.answered_accuracy,
                case_ids=chosen,
            )

        update["splits"] = [block("dev", ids[::2]), block("heldout", ids[1::2])]
        update["heldout"] = HeldoutNote(cases=len(ids[1::2]), runs=2)
    changed = report.model_copy(update=update)
    gates = evaluate_gates(changed, rules)
    expected = _element_tree_junit(changed, gates)
    assert render_junit(changed, gates) == expected
    values = CaseRows(tuple(getattr(row, f) for f in ROW_FIELDS) for row in rows)
    assert render_junit(changed.model_copy(update={"cases": values}), gates) == expected
