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
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import assay.render._format as f
from assay.gates import GateResult
from assay.render._trials import judge_noise_lines
from assay.report import (
    ROW_FIELDS,
    CaseRow,
    Report,
    SplitBlock,
    UnknownBounds,
    budget_limits_text,
    chunked,
    rendered_chunks,
)

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
    each on a line of its own, kept cleaned in parts of a few thousand), and its counts."""

    def __init__(self, name: str, properties: Sequence[tuple[str, str | None]] | None) -> None:
        self.name = name
        self.properties = properties
        self.parts: list[str] = []
        self.pending: list[str] = []
        self.tests = self.failures = self.errors = self.skipped = 0

    def extend(self, text: str, tests: int, failures: int, errors: int) -> None:
        """Add test cases given together: their XML (cleaned: see ``_clean``) and counts."""
        if self.pending:
            self.parts.append(_clean("".join(self.pending)))
            self.pending = []
        self.parts.append(text)
        self.tests += tests
        self.failures += failures
        self.errors += errors

    def add(self, xml: str, kind: str | None) -> None:
        self.tests += 1
        if kind == "failure":
            self.failures += 1
        elif kind == "error":
            self.errors += 1
        elif kind == "skipped":
            self.skipped += 1
        self.pending.append(xml)
        if len(self.pending) >= _ROWS_PER_PART:
            self.parts.append(_clean("".join(self.pending)))
            self.pending = []

    def chunks(self) -> Iterator[str]:
        """The suite's XML in pieces, cleaned (see ``_clean``)."""
        counts = f'tests="{self.tests}" failures="{self.failures}" errors="{self.errors}"'
        head = (
            f'\n  <testsuite name="{_attr(self.name)}" {counts} skipped="{self.skipped}" time="0"'
        )
        if not self.tests and self.properties is None:
            yield _clean(head + " />")
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
        yield _clean(head)
        yield from self.parts
        yield _clean("".join(self.pending) + "\n  </testsuite>")


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
        *_figure_properties(report),
        *_agent_properties(report),
        *extra,
    ]


def _agent_properties(report: Report) -> list[tuple[str, str | None]]:
    """The agents' steps, tool calls, tool errors and malformed calls in total, when a
    case-trial recorded a trajectory (in the words of the other formats)."""
    a = report.agent
    if a is None:
        return []
    return [
        ("agent.case_trials", str(a.case_trials)),
        ("agent.steps", str(a.steps)),
        ("agent.tool_calls", str(a.tool_calls)),
        ("agent.tool_errors", str(a.tool_errors)),
        ("agent.malformed_calls", str(a.malformed_calls)),
        ("agent.step_limit", str(a.step_limit)),
        ("agent.counts", f.agent_line(a)),
    ]


def _figure_properties(report: Report) -> list[tuple[str, str | None]]:
    """Each rate's bounds over its unknowns and task success's correction for the judge's errors,
    when the report has them (each in the words of the other formats)."""
    found = _bound_properties(report.unknown_bounds, f.bounds_lines(report), "")
    c = report.judge_correction
    if c is not None:
        if c.corrected is not None:
            found.append(("task_success.corrected", repr(c.corrected.value)))
        found.append(("task_success.judge_correction", f.correction_line(report)))
    n = report.judge_noise
    if n is not None:
        unstable = ", ".join(f"{x.id} #{x.trial}" for x in n.flips) or "none"
        found += [
            ("judge_noise.repeats", str(n.repeats)),
            ("judge_noise.unstable", f"{n.unstable}/{n.judged}"),
            ("judge_noise.unstable_case_trials", unstable),
            ("judge_noise", "; ".join(judge_noise_lines(report))),
        ]
    return found


def _bound_properties(
    b: UnknownBounds | None, lines: list[str], prefix: str
) -> list[tuple[str, str | None]]:
    """The properties of bounds ``b``, each rate's named after ``prefix``, with ``lines``
    (their words in the other formats, in the same order)."""
    if b is None:
        return []
    said = iter(lines)
    named = [
        ("task_success", b.task_success),
        ("answer_coverage", b.answer_coverage),
        ("answered_accuracy", b.answered_accuracy),
        *((f"slice[{name}].task_success", s) for name, s in b.slices.items()),
    ]
    found: list[tuple[str, str | None]] = []
    for name, t in named:
        if t is None:
            continue
        found += [
            (f"{prefix}{name}.unknown", str(t.unknown)),
            (f"{prefix}{name}.worst", f"{t.worst.numerator}/{t.worst.denominator}"),
            (f"{prefix}{name}.best", f"{t.best.numerator}/{t.best.denominator}"),
            (f"{prefix}{name}.bounds", next(said)),
        ]
    return found


def _sequential_properties(report: Report) -> list[tuple[str, str | None]]:
    s = report.sequential
    if s is None:
        return []
    return [
        ("sequential.verdict", s.verdict or "undecided"),
        ("sequential.drawn", f"{s.drawn} of {s.cases} cases (seeded random order)"),
        ("sequential.decided_at", str(s.decided_at) if s.decided_at is not None else None),
        ("sequential.alpha", f"{s.alpha:g}"),
        ("sequential.seed", str(s.seed)),
        ("sequential.not_drawn", str(len(s.not_drawn))),
    ]


def _not_drawn(report: Report) -> _Suite | None:
    """The cases a sequential run never drew: skipped test cases (not drawn, not missing)."""
    s = report.sequential
    if s is None or not s.not_drawn:
        return None
    suite = _Suite(f"assay cases not drawn: {report.dataset.name}", None)
    message = _attr(
        f"not drawn: the run was decided after {s.decided_at or s.drawn} of {s.cases} cases"
    )
    for case_id in s.not_drawn:
        suite.add(
            f'\n    <testcase classname="{_attr(report.dataset.name)}.not_drawn" '
            f'name="{_attr(case_id)}">\n      <skipped message="{message}" />\n    </testcase>',
            "skipped",
        )
    return suite


def _budget_properties(report: Report) -> list[tuple[str, str | None]]:
    b = report.budget
    if b is None:
        return []
    return [
        ("budget.reached", "true" if b.reached else "false"),
        ("budget.limits", budget_limits_text(b)),
        ("budget.run", f"{b.case_trials - len(b.not_run)} of {b.case_trials} case-trials"),
        ("budget.calls", str(b.calls)),
        ("budget.tokens", str(b.tokens)),
        ("budget.cost_usd", f"{b.cost_usd:g}" if b.cost_usd is not None else None),
        ("budget.not_run", str(len(b.not_run))),
    ]


def _not_run(report: Report) -> _Suite | None:
    """The case-trials a run's budget left unstarted: skipped test cases (not missing)."""
    b = report.budget
    if b is None or not b.not_run:
        return None
    suite = _Suite(f"assay case-trials not run: {report.dataset.name}", None)
    message = _attr(f"not run: the budget ({budget_limits_text(b)}) was reached")
    for key in b.not_run:
        suite.add(
            f'\n    <testcase classname="{_attr(report.dataset.name)}.not_run" '
            f'name="{_attr(key)}">\n      <skipped message="{message}" />\n    </testcase>',
            "skipped",
        )
    return suite


def _heldout_properties(report: Report) -> list[tuple[str, str | None]]:
    note = report.heldout
    if note is None:
        return []
    runs = str(note.runs) if note.runs is not None else None
    return [("heldout", note.banner), ("heldout.cases", str(note.cases)), ("heldout.runs", runs)]


def _split_properties(report: Report, block: SplitBlock) -> list[tuple[str, str | None]]:
    rate = block.task_success
    found: list[tuple[str, str | None]] = [
        ("split", block.split),
        ("split.task_success", f"{rate.numerator}/{rate.denominator}"),
        ("split.task_success.denominator", rate.denominator_name),
    ]
    lines = f.block_bounds_lines(report, block)
    found += _bound_properties(block.unknown_bounds, lines, "split.")
    return found + (_heldout_properties(report) if block.split == "heldout" else [])


class _SuiteCases:
    """The test cases of some case rows (their ``_READ`` values), by the suite each goes
    to: ``routes`` (a suite's case ids, None for every case) for a real case, the suite
    ``synthetic`` (an index past them) for a synthetic one (left out when None)."""

    def __init__(
        self, case_xml: _RowCases, routes: list[frozenset[str] | None], synthetic: int | None
    ) -> None:
        self.case_xml = case_xml
        self.routes = routes
        self.synthetic = synthetic

    def __call__(self, rows: Iterable[tuple[Any, ...]]) -> list[tuple[int, str, int, int, int]]:
        """Each suite's (index, cleaned XML, tests, failures, errors) of ``rows``, the
        suites in index order; none for a suite no row goes to."""
        case_xml, routes, synthetic = self.case_xml, self.routes, self.synthetic
        every = [k for k, ids in enumerate(routes) if ids is None]
        keyed = [(k, ids) for k, ids in enumerate(routes) if ids is not None]
        xml: dict[int, list[str]] = {}
        counts: dict[int, list[int]] = {}
        for values in rows:
            if values[3]:
                if synthetic is None:
                    continue
                goes = [synthetic]
            else:
                goes = every + [k for k, ids in keyed if values[0] in ids] if keyed else every
                if not goes:
                    continue
            text, kind = case_xml(values)
            for k in goes:
                found = counts.get(k)
                if found is None:
                    xml[k], found = [], counts.setdefault(k, [0, 0, 0])
                xml[k].append(text)
                found[0] += 1
                if kind == "failure":
                    found[1] += 1
                elif kind == "error":
                    found[2] += 1
        return [(k, _clean("".join(xml[k])), *_three(counts[k])) for k in sorted(xml)]


def _three(counts: list[int]) -> tuple[int, int, int]:
    return counts[0], counts[1], counts[2]


_PICK_HELD = operator.itemgetter(*(ROW_FIELDS.index(name) for name in _READ))


class _HeldCases:
    """``_SuiteCases`` of rows given as their value tuples (it pickles: a forked process
    may be asked to make them)."""

    def __init__(self, cases: _SuiteCases) -> None:
        self.cases = cases

    def __call__(self, chunk: list[tuple[Any, ...]]) -> list[tuple[int, str, int, int, int]]:
        return self.cases(map(_PICK_HELD, chunk))


def _case_parts(
    rows: Sequence[CaseRow], cases: _SuiteCases
) -> Iterator[list[tuple[int, str, int, int, int]]]:
    """``cases`` of each few thousand rows, in order, the rows read once: from their value
    tuples when held as values (``CaseRows``; rows read from a store, in two processes
    when many), without making the rows."""

    made = rendered_chunks(rows, _ROWS_PER_PART, _HeldCases(cases))
    if made is not None:
        return made
    return map(cases, chunked(map(operator.attrgetter(*_READ), rows), _ROWS_PER_PART))


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
        real = _Suite(
            f"assay cases: {name}",
            _properties(
                report,
                _heldout_properties(report)
                + _sequential_properties(report)
                + _budget_properties(report),
            ),
        )
        routes.append((None, real))
        suites.append(real)
    synthetic = None
    if report.synthetic is not None:
        synthetic = _Suite(f"{report.synthetic.banner}: {name}", None)
        suites.append(synthetic)
    undrawn = _not_drawn(report)
    if undrawn is not None:
        suites.append(undrawn)
    unrun = _not_run(report)
    if unrun is not None:
        suites.append(unrun)
    targets = [suite for _, suite in routes]
    if synthetic is not None:
        targets.append(synthetic)
    cases = _SuiteCases(
        _RowCases(report), [ids for ids, _ in routes], None if synthetic is None else len(routes)
    )
    for made in _case_parts(report.cases, cases):
        for k, text, tests, failures, errors in made:
            targets[k].extend(text, tests, failures, errors)
    tests = sum(s.tests for s in suites)
    failures = sum(s.failures for s in suites)
    errors = sum(s.errors for s in suites)
    yield _clean(
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated by assay -->\n'
        f'<testsuites name="{_attr(f"assay {name}")}" tests="{tests}" '
        f'failures="{failures}" errors="{errors}">'
    )
    for suite in suites:
        yield from suite.chunks()
    yield "\n</testsuites>\n"
