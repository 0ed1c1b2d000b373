"""A report made while the records are read: each record graded and made its case row as
it arrives, so that no record or judgment outlives its row.

For the usual large results file (one trial, outcomes only): a report of a million cases
then holds its cases, their rows and one small tally per case instead of every record and
judgment at once. Anything this path does not cover makes it give up (None) before
anything is reported, and the caller reports the usual way, which says what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Protocol, cast

from assay.cases import Case, Dataset
from assay.grading import (
    GRADERLESS,
    MISSING_REASON,
    RULES_VERSION,
    CaseResult,
    Grader,
    Labels,
    Status,
    StructuredGrader,
    abstained_verdict,
    answered_verdict,
    error_reason,
    error_text,
    judge_record,
    missing_judgment,
    structured_verdict,
)
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, TrialPolicy, summarize_results
from assay.outcomes import Abstain, Answer, Error, Record
from assay.report._build import assemble_report, row_values, split_blocks
from assay.report._model import Report
from assay.report._rows import ROW_FIELDS, CaseRows


class Tally(NamedTuple):
    """What the summary reads of one case-trial (``CaseResult``'s ``case``, ``trial``,
    ``status`` and ``answered``), kept once its record and judgment are gone (a named
    tuple: made a million times, it costs a fifth of a frozen dataclass)."""

    case: Case
    trial: int
    status: Status
    answered: bool


def streamed_report(
    dataset: Dataset,
    records: Iterable[Record],
    grader: Grader,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Report | None:
    """The report ``build_report(dataset, grade_all(dataset, records, grader))`` makes,
    for records of trial 1 with no usage, latency or extra data, graded as they come; None
    when a record is not such a record, names an unknown case or repeats one, or a
    judgment carries labels (then nothing is reported: use the usual path)."""
    cases = dataset.cases
    where = {case.id: i for i, case in enumerate(cases)}
    hashes = dataset.case_hashes
    labels: dict[tuple[str, str], str] = {}
    rows: list[tuple[Any, ...] | None] = [None] * len(cases)
    answered = bytearray(len(cases))
    graders: set[tuple[str, str]] = set()
    reasons: dict[str, str] = {}
    structured = type(grader) is StructuredGrader
    for record in records:
        i = where.get(record.case_id)
        if i is None or rows[i] is not None or not _plain(record):
            return None
        case = cases[i]
        if structured:
            row = rows[i] = _structured_row(case, record, hashes[case.id], reasons)
            if row[GRADER_FIELD] is STRUCTURED_LABEL:
                graders.add((StructuredGrader.name, StructuredGrader.version))
            answered[i] = row[OUTCOME_FIELD] == "answer"
            continue
        judgment = judge_record(case, record, grader)
        if judgment.labels:
            return None
        graders.add((judgment.grader, judgment.grader_version))
        values = row_values(CaseResult(case, 1, record, judgment), hashes, labels)
        rows[i] = _shared_reason(values, reasons)
        answered[i] = record.outcome.kind == "answer"
    del where
    return _assembled(dataset, rows, answered, graders, reasons, labels, interval, policy)


def streamed_lines_report(
    dataset: Dataset,
    lines: Iterable[dict[str, Any]],
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> Report | None:
    """``streamed_report(dataset, records, StructuredGrader(), interval=interval)`` of the
    records of the usual result lines (each a decoded line of which ``_plain_record``
    makes a record: see ``assay.load._aside``), made from the lines without the records;
    None when a line names an unknown case or repeats one."""
    cases = dataset.cases
    where = {case.id: i for i, case in enumerate(cases)}
    hashes = dataset.hashes_in_order
    rows: list[tuple[Any, ...] | None] = [None] * len(cases)
    answered = bytearray(len(cases))
    reasons: dict[str, str] = {}
    structured = False
    for line in lines:
        i = where.get(line["id"])
        if i is None or rows[i] is not None:
            return None
        row = rows[i] = line_row(cases[i], line, hashes[i], reasons)
        structured = structured or row[GRADER_FIELD] is STRUCTURED_LABEL
        answered[i] = row[OUTCOME_FIELD] == "answer"
    del where
    graders = {(StructuredGrader.name, StructuredGrader.version)} if structured else set()
    return _assembled(dataset, rows, answered, graders, reasons, {}, interval, None)


def _assembled(
    dataset: Dataset,
    rows: list[tuple[Any, ...] | None],
    answered: bytearray,
    graders: set[tuple[str, str]],
    reasons: dict[str, str],
    labels: dict[tuple[str, str], str],
    interval: IntervalSetting,
    policy: TrialPolicy | None,
) -> Report:
    """The report of the rows made so far, the cases without one missing."""
    cases, hashes = dataset.cases, dataset.hashes_in_order
    tallies: list[Tally] = []
    for i, case in enumerate(cases):
        made = rows[i]
        if made is None:
            result = CaseResult(case, 1, None, missing_judgment(case.id, 1))
            values = row_values(result, {case.id: hashes[i]}, labels)
            made = rows[i] = _shared_reason(values, reasons)
        tallies.append(Tally(case, 1, made[STATUS_FIELD], bool(answered[i])))
    # The summary reads only the four fields a Tally has (tests/unit/report/test_streamed.py
    # holds the two reports equal).
    graded = cast("Sequence[CaseResult]", tallies)
    summary = summarize_results(graded, interval=interval, policy=policy)
    return assemble_report(
        dataset,
        summary,
        CaseRows(cast("list[tuple[Any, ...]]", rows)),
        graders=sorted(graders - {("assay", "1")}),
        splits=split_blocks(graded, interval, policy),
        dimensions={},  # every judgment was without labels
        cache=None,  # no record carried a cache note
        judged_usage=None,  # nor a judge's labels
    )


def _shared_reason(values: tuple[Any, ...], reasons: dict[str, str]) -> tuple[Any, ...]:
    """``values`` with its fact and its grader's reason the one string object of that
    text: the same few facts and reasons ("abstained, as expected") are written for most
    of a million rows."""
    reason, fact = values[_REASON], values[_FACT]
    shared = reasons.setdefault(reason, reason)
    said = fact if fact is None else reasons.setdefault(fact, fact)
    if shared is reason and said is fact:
        return values
    return (*values[:_FACT], said, *values[_FACT + 1 : _REASON], shared, *values[_REASON + 1 :])


def _structured_row(
    case: Case, record: Record, case_hash: str, shared: dict[str, str]
) -> tuple[Any, ...]:
    """The row ``_shared_reason(row_values(…), shared)`` makes of this record's judgment
    by the structured grader (``judge_record``), made without the judgment: the usual row
    of ``assay score``."""
    outcome = record.outcome
    fact = text = reason = raw = None
    if type(outcome) is Error:
        status: Status = "error"
        said, label = error_reason(outcome), _ASSAY_LABEL
        raw = outcome.raw
    else:
        status, said = structured_verdict(case, record)
        label = STRUCTURED_LABEL
        if type(outcome) is Answer:
            fact, text = outcome.fact, outcome.text
        elif type(outcome) is Abstain:
            text, reason = outcome.text, outcome.reason
    said = shared.setdefault(said, said)
    if fact is not None:
        fact = shared.setdefault(fact, fact)
    return _row(case, case_hash, outcome.kind, fact, text, reason, status, said, label, raw)


class RowCase(Labels, Protocol):
    """What a case row shows of its case (a ``Case`` is one)."""

    @property
    def id(self) -> str: ...

    @property
    def slice(self) -> str: ...

    @property
    def synthetic(self) -> bool: ...

    @property
    def prompt(self) -> str: ...

    @property
    def rationale(self) -> str | None: ...

    @property
    def source_revision(self) -> str | None: ...


def line_row(
    case: RowCase, line: dict[str, Any], case_hash: str, shared: dict[str, str]
) -> tuple[Any, ...]:
    """``_structured_row(case, _plain_record(line), case_hash, shared)``, made from the
    decoded line: its kind, and text fields of that kind alone."""
    kind = line["kind"]
    get = line.get
    fact = text = reason = raw = None
    if kind == "error":
        status: Status = "error"
        said, label = error_text(get("error_class", get("class")), get("message")), _ASSAY_LABEL
        raw = get("raw")
    else:
        label = STRUCTURED_LABEL
        text = get("text")
        if kind == "answer":
            fact = get("fact")
            status, said = answered_verdict(case, fact)
        else:
            reason = get("reason")
            status, said = abstained_verdict(case)
    said = shared.setdefault(said, said)
    if fact is not None:
        fact = shared.setdefault(fact, fact)
    return _row(case, case_hash, kind, fact, text, reason, status, said, label, raw)


def missing_row(case: RowCase, case_hash: str, shared: dict[str, str]) -> tuple[Any, ...]:
    """The row ``_assembled`` makes of a case no line was read for, made without a
    ``CaseResult``."""
    said = shared.setdefault(MISSING_REASON, MISSING_REASON)
    return _row(case, case_hash, None, None, None, None, "missing", said, _ASSAY_LABEL, None)


def _row(
    case: RowCase,
    case_hash: str,
    kind: str | None,
    fact: str | None,
    text: str | None,
    reason: str | None,
    status: Status,
    said: str,
    label: str,
    raw: str | None,
) -> tuple[Any, ...]:
    """The case row of trial 1 of ``case`` in ``ROW_FIELDS`` order, with nothing measured."""
    return (
        case.id,
        case.slice,
        1,
        case.synthetic,
        case.prompt,
        case.expected_behavior,
        case.expected_fact,
        case.rationale,
        kind,
        fact,
        text,
        reason,
        status,
        said,
        label,
        case_hash,
        case.source_revision,
        raw,
        *_NOTHING_MEASURED,
    )


_ASSAY_LABEL = f"{GRADERLESS} v{RULES_VERSION}"
STRUCTURED_LABEL = f"{StructuredGrader.name} v{StructuredGrader.version}"
_NOTHING_MEASURED = (None,) * 9
"""Tokens, latency, transcript, traceback, judge, cache, agent counts and trajectory of a
record that has none."""


def _plain(record: Record) -> bool:
    return (
        record.trial == 1
        and record.usage is None
        and record.latency_ms is None
        and not record.extra
    )


STATUS_FIELD = ROW_FIELDS.index("status")
OUTCOME_FIELD = ROW_FIELDS.index("outcome")
_FACT = ROW_FIELDS.index("fact")
GRADER_FIELD = ROW_FIELDS.index("grader")
_REASON = ROW_FIELDS.index("reason")
