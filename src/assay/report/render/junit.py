"""The report as JUnit XML for CI: one test case per gate rule and per dataset case-trial.

Failed cases are JUnit ``<failure>``; errors, missing outputs and ungraded cases are JUnit
``<error>`` (they are problems of the run, not verdicts on the answer), so a CI dashboard
never shows them as passing. Synthetic cases sit in their own suite, labelled as such; when
the report has real cases of both dev and held-out, each split is its own suite (held-out
labelled ``HELD-OUT``), with the split and its task success as properties.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any

from assay.report._gates import GateResult
from assay.report._model import CaseRow, Report, SplitBlock
from assay.report._rows import ROW_FIELDS

# Characters XML 1.0 cannot carry, even escaped; an answer may contain them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_PROBLEM = {"failed": "failure", "error": "error", "missing": "error", "ungraded": "error"}
_ROWS_PER_PART = 2_000
_READ = (
    "id", "trial", "slice", "synthetic", "status", "reason", "question",
    "expected_behavior", "expected_fact", "outcome", "fact", "text", "grader",
)  # fmt: skip
"""The fields of a case row the XML shows, in the order ``_RowCases`` takes them."""


def _clean(text: object) -> str:
    return _INVALID_XML.sub("\ufffd", str(text))


def _cdata(text: str) -> str:
    """Element text escaped as ``xml.etree.ElementTree`` escapes it."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _attr(value: object) -> str:
    """An attribute's value escaped as ``xml.etree.ElementTree`` escapes it."""
    text = _cdata(str(value))
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    if "\n" in text:
        text = text.replace("\n", "&#10;")
    if "\t" in text:
        text = text.replace("\t", "&#09;")
    return text


class _Suite:
    """A ``<testsuite>`` being written: its name, properties and test cases (their XML,
    each on a line of its own, kept in parts of a few thousand), and its counts."""

    def __init__(self, name: str, properties: Sequence[tuple[str, str | None]] | None) -> None:
        self.name = name
        self.properties = properties
        self.parts: list[str] = []
        self.pending: list[str] = []
        self.tests = self.failures = self.errors = 0

    def add(self, xml: str, kind: str | None) -> None:
        self.tests += 1
        if kind == "failure":
            self.failures += 1
        elif kind == "error":
            self.errors += 1
        self.pending.append(xml)
        if len(self.pending) >= _ROWS_PER_PART:
            self.parts.append("".join(self.pending))
            self.pending = []

    def chunks(self) -> Iterator[str]:
        counts = f'tests="{self.tests}" failures="{self.failures}" errors="{self.errors}"'
        head = f'\n  <testsuite name="{_attr(self.name)}" {counts} skipped="0" time="0"'
        if not self.tests and self.properties is None:
            yield head + " />"
            return
        if self.properties is not None:
            shown = "".join(
                f'\n      <property name="{_attr(key)}" value="{_attr(value)}" />'
                for key, value in self.properties
                if value is not None
            )
            head += (
                f">\n    <properties>{shown}\n    </properties>"
                if shown
                else ">\n    <properties />"
            )
        else:
            head += ">"
        yield head
        yield from self.parts
        yield "".join(self.pending) + "\n  </testsuite>"


def _gate_case(result: GateResult) -> tuple[str, str | None]:
    head = f'\n    <testcase classname="assay.gate" name="{_attr(result.rule.text)}"'
    if result.passed:
        return head + " />", None
    message = result.message
    failure = f'<failure type="gate" message="{_attr(message)}">{_cdata(message)}</failure>'
    return f"{head}>\n      {failure}\n    </testcase>", "failure"


def _case_detail(
    question: str,
    behavior: str,
    fact_expected: str | None,
    outcome: str | None,
    fact: str | None,
    text: str | None,
    status: str,
    reason: str,
    grader: str,
) -> str:
    lines = [
        f"question: {question}",
        f"expected: {behavior}" + (f" {fact_expected}" if fact_expected else ""),
        f"outcome: {outcome or 'none recorded'}" + (f" {fact}" if fact else ""),
    ]
    if text:
        lines.append(f"text: {text}")
    lines += [f"status: {status}", f"reason: {reason}", f"grader: {grader}"]
    return "\n".join(lines)


class _RowCases:
    """Each case row's ``<testcase>``: a dataset case-trial, its failure or error with
    the case's question, expectation, outcome and verdict."""

    def __init__(self, report: Report) -> None:
        self.dataset = report.dataset.name
        self.one_trial = report.trials == 1
        self.classnames: dict[str, str] = {}

    def __call__(self, values: tuple[Any, ...]) -> tuple[str, str | None]:
        (case_id, trial, part, _, status, reason, question) = values[:7]
        (behavior, fact_expected, outcome, fact, text, grader) = values[7:]
        name = case_id if self.one_trial else f"{case_id} #{trial}"
        classname = self.classnames.get(part)
        if classname is None:
            classname = self.classnames[part] = _attr(f"{self.dataset}.{part}")
        head = f'\n    <testcase classname="{classname}" name="{_attr(name)}"'
        kind = _PROBLEM.get(status)
        if kind is None:
            return head + " />", None
        detail = _case_detail(
            question, behavior, fact_expected, outcome, fact, text, status, reason, grader
        )
        problem = (
            f'<{kind} type="{_attr(status)}" message="{_attr(reason)}">{_cdata(detail)}</{kind}>'
        )
        return f"{head}>\n      {problem}\n    </testcase>", kind


def _cache_properties(report: Report) -> list[tuple[str, str | None]]:
    c = report.cache
    if c is None:
        return []
    version = str(c.key_version) if c.key_version is not None else "n/a"
    return [("cache.served", str(c.served)), ("cache.key_version", version)]


def _properties(
    report: Report, extra: Sequence[tuple[str, str | None]]
) -> list[tuple[str, str | None]]:
    return [
        ("dataset.version", report.dataset.version),
        ("assay.version", report.assay_version),
        ("run.id", report.run_id),
        *_cache_properties(report),
        *extra,
    ]


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


def _shown_values(rows: Sequence[CaseRow]) -> Iterator[tuple[Any, ...]]:
    """The ``_READ`` fields of each row, in order, read once: from the value tuples of
    rows held as values (``CaseRows``, rows read from a store), without making the rows."""
    held = getattr(rows, "values", None)
    if held is not None and callable(held):
        pick: Callable[[Any], tuple[Any, ...]] = operator.itemgetter(
            *(ROW_FIELDS.index(name) for name in _READ)
        )
        tuples: Iterator[Any] = held()
    else:
        pick = operator.attrgetter(*_READ)
        tuples = iter(rows)
    while chunk := list(islice(tuples, _ROWS_PER_PART)):
        yield from map(pick, chunk)


def render_junit(report: Report, gates: Sequence[GateResult] = ()) -> str:
    """JUnit XML (the Ant/Jenkins ``junit-10`` shape) for ``report`` and its gate results."""
    return "".join(render_junit_chunks(report, gates))


def render_junit_chunks(report: Report, gates: Sequence[GateResult] = ()) -> Iterator[str]:
    """``render_junit``'s text in pieces, from one pass over the case rows (rows read
    from a store are never all in memory; the XML is, its counts coming first).

    Characters XML cannot carry are replaced in each piece as it is given out: escaping
    neither makes nor moves one, so this is the text of cleaning every value first."""
    name = report.dataset.name
    suites: list[_Suite] = []
    if gates:
        suite = _Suite("assay gates", None)
        for result in gates:
            suite.add(*_gate_case(result))
        suites.append(suite)
    routes: list[tuple[frozenset[str] | None, _Suite]] = []
    if report.splits:
        for block in report.splits:
            label = "dev" if block.split == "dev" else "HELD-OUT"
            part = _Suite(
                f"assay cases: {name} ({label})",
                _properties(report, _split_properties(report, block)),
            )
            routes.append((frozenset(block.case_ids), part))
            suites.append(part)
    else:
        real = _Suite(f"assay cases: {name}", _properties(report, _heldout_properties(report)))
        routes.append((None, real))
        suites.append(real)
    synthetic = None
    if report.synthetic is not None:
        synthetic = _Suite(f"{report.synthetic.banner}: {name}", None)
        suites.append(synthetic)
    case_xml = _RowCases(report)
    for values in _shown_values(report.cases):
        if values[3]:
            if synthetic is not None:
                synthetic.add(*case_xml(values))
            continue
        made = None
        for ids, suite in routes:
            if ids is None or values[0] in ids:
                made = made or case_xml(values)
                suite.add(*made)
    tests = sum(s.tests for s in suites)
    failures = sum(s.failures for s in suites)
    errors = sum(s.errors for s in suites)
    yield _clean(
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated by assay -->\n'
        f'<testsuites name="{_attr(f"assay {name}")}" tests="{tests}" '
        f'failures="{failures}" errors="{errors}">'
    )
    for suite in suites:
        yield from map(_clean, suite.chunks())
    yield "\n</testsuites>\n"
