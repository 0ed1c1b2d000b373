"""The report as JUnit XML for CI: one test case per gate rule and per dataset case-trial.

Failed cases are JUnit ``<failure>``; errors, missing outputs and ungraded cases are JUnit
``<error>`` (they are problems of the run, not verdicts on the answer), so a CI dashboard
never shows them as passing. Synthetic cases sit in their own suite, labelled as such; when
the report has real cases of both dev and held-out, each split is its own suite (held-out
labelled ``HELD-OUT``), with the split and its task success as properties.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from assay.report._gates import GateResult
from assay.report._model import CaseRow, Report, SplitBlock

# Characters XML 1.0 cannot carry, even escaped; an answer may contain them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_PROBLEM = {"failed": "failure", "error": "error", "missing": "error", "ungraded": "error"}


def _clean(text: object) -> str:
    return _INVALID_XML.sub("\ufffd", str(text))


def _suite(parent: ET.Element, name: str) -> ET.Element:
    return ET.SubElement(parent, "testsuite", {"name": _clean(name)})


def _close(suite: ET.Element) -> tuple[int, int, int]:
    cases = suite.findall("testcase")
    failures = sum(1 for c in cases if c.find("failure") is not None)
    errors = sum(1 for c in cases if c.find("error") is not None)
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", "0")
    suite.set("time", "0")
    return len(cases), failures, errors


def _gate_case(suite: ET.Element, result: GateResult) -> None:
    case = ET.SubElement(
        suite, "testcase", {"classname": "assay.gate", "name": _clean(result.rule.text)}
    )
    if not result.passed:
        failure = ET.SubElement(
            case, "failure", {"type": "gate", "message": _clean(result.message)}
        )
        failure.text = _clean(result.message)


def _case_detail(row: CaseRow) -> str:
    lines = [
        f"question: {row.question}",
        f"expected: {row.expected_behavior}"
        + (f" {row.expected_fact}" if row.expected_fact else ""),
        f"outcome: {row.outcome or 'none recorded'}" + (f" {row.fact}" if row.fact else ""),
    ]
    if row.text:
        lines.append(f"text: {row.text}")
    lines += [f"status: {row.status}", f"reason: {row.reason}", f"grader: {row.grader}"]
    return _clean("\n".join(lines))


def _row_case(suite: ET.Element, report: Report, row: CaseRow) -> None:
    name = row.id if report.trials == 1 else f"{row.id} #{row.trial}"
    case = ET.SubElement(
        suite,
        "testcase",
        {"classname": _clean(f"{report.dataset.name}.{row.slice}"), "name": _clean(name)},
    )
    kind = _PROBLEM.get(row.status)
    if kind is not None:
        problem = ET.SubElement(case, kind, {"type": row.status, "message": _clean(row.reason)})
        problem.text = _case_detail(row)


def _cache_properties(report: Report) -> list[tuple[str, str | None]]:
    c = report.cache
    if c is None:
        return []
    version = str(c.key_version) if c.key_version is not None else "n/a"
    return [("cache.served", str(c.served)), ("cache.key_version", version)]


def _properties(suite: ET.Element, report: Report, extra: Sequence[tuple[str, str | None]]) -> None:
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("dataset.version", report.dataset.version),
        ("assay.version", report.assay_version),
        ("run.id", report.run_id),
        *_cache_properties(report),
        *extra,
    ):
        if value is None:
            continue
        ET.SubElement(props, "property", {"name": key, "value": _clean(value)})


def _heldout_properties(report: Report) -> list[tuple[str, str | None]]:
    note = report.heldout
    if note is None:
        return []
    runs = str(note.runs) if note.runs is not None else None
    return [("heldout", note.banner), ("heldout.cases", str(note.cases)), ("heldout.runs", runs)]


def _split_properties(report: Report, block: SplitBlock) -> list[tuple[str, str | None]]:
    rate = block.task_success
    found = [
        ("split", block.split),
        ("split.task_success", f"{rate.numerator}/{rate.denominator}"),
        ("split.task_success.denominator", rate.denominator_name),
    ]
    return found + (_heldout_properties(report) if block.split == "heldout" else [])


def render_junit(report: Report, gates: Sequence[GateResult] = ()) -> str:
    """JUnit XML (the Ant/Jenkins ``junit-10`` shape) for ``report`` and its gate results."""
    root = ET.Element("testsuites", {"name": _clean(f"assay {report.dataset.name}")})
    suites: list[ET.Element] = []
    if gates:
        suite = _suite(root, "assay gates")
        for result in gates:
            _gate_case(suite, result)
        suites.append(suite)
    real_rows = [row for row in report.cases if not row.synthetic]
    if report.splits:
        for block in report.splits:
            ids = set(block.case_ids)
            label = "dev" if block.split == "dev" else "HELD-OUT"
            part = _suite(root, f"assay cases: {report.dataset.name} ({label})")
            _properties(part, report, _split_properties(report, block))
            for row in real_rows:
                if row.id in ids:
                    _row_case(part, report, row)
            suites.append(part)
    else:
        real = _suite(root, f"assay cases: {report.dataset.name}")
        _properties(real, report, _heldout_properties(report))
        for row in real_rows:
            _row_case(real, report, row)
        suites.append(real)
    if report.synthetic is not None:
        synthetic = _suite(root, f"{report.synthetic.banner}: {report.dataset.name}")
        for row in report.cases:
            if row.synthetic:
                _row_case(synthetic, report, row)
        suites.append(synthetic)
    totals = [_close(s) for s in suites]
    root.set("tests", str(sum(t[0] for t in totals)))
    root.set("failures", str(sum(t[1] for t in totals)))
    root.set("errors", str(sum(t[2] for t in totals)))
    ET.indent(root)
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated by assay -->\n'
    return head + ET.tostring(root, "unicode") + "\n"
