"""Case rows kept compactly (``build_report(compact=True)``) read exactly as the rows of
a report built the ordinary way, and every value lands in the field it belongs to."""

from __future__ import annotations

import pytest

from assay.cases import Case, Dataset
from assay.grading import CaseResult, Judgment, grade_all
from assay.outcomes import Abstain, Answer, Error, Record, Usage
from assay.render import render
from assay.report import CaseRow, build_report
from assay.report._rows import ROW_FIELDS, CaseRows, row_of


def _case(case_id: str, **fields: object) -> Case:
    values: dict[str, object] = {
        "id": case_id,
        "slice": "s",
        "question": f"question {case_id}?",
        "expected_behavior": "answer",
        "expected_fact": "f",
    }
    values.update(fields)
    return Case.model_validate(values)


def _inputs() -> tuple[Dataset, list[Record]]:
    cases = (
        _case("A", rationale="why A", source_revision="rev-1"),
        _case("B", expected_behavior="abstain", expected_fact=None),
        _case("C"),
        _case("D", split="heldout"),
        _case("E", synthetic=True),
        _case("F"),
    )
    transcript = {"messages": [{"role": "user", "content": "q"}], "reply": "r"}
    records = [
        Record(
            case_id="A",
            outcome=Answer(fact="f", text="the answer"),
            usage=Usage(input_tokens=11, output_tokens=7),
            latency_ms=12.5,
            extra={"transcript": transcript},
        ),
        Record(case_id="B", outcome=Abstain(reason="out of scope", text="cannot say")),
        Record(
            case_id="C",
            outcome=Error(error_class="parse_error", message="bad", raw="{oops"),
            extra={"traceback": "target.py:3"},
        ),
        Record(
            case_id="D", outcome=Answer(fact="g"), extra={"cache": {"hit": True, "run_id": "r-0"}}
        ),
        Record(case_id="E", outcome=Answer(fact="f")),
    ]
    return Dataset(name="rows", cases=cases), records


def test_compact_rows_read_as_the_ordinary_rows_and_render_the_same_bytes() -> None:
    data, records = _inputs()
    plain = build_report(data, grade_all(data, records))
    graded = grade_all(data, records)
    compact = build_report(data, graded, compact=True)
    assert graded == []  # handed over: emptied as the rows were made
    assert isinstance(compact.cases, CaseRows)
    assert [r.model_dump() for r in compact.cases] == [r.model_dump() for r in plain.cases]
    assert compact.cases == plain.cases
    for fmt in ("json", "text", "markdown", "html", "junit"):
        assert render(compact, fmt) == render(plain, fmt), fmt


def test_every_value_is_in_its_own_field() -> None:
    data, records = _inputs()
    rows = {r.id: r for r in build_report(data, grade_all(data, records), compact=True).cases}
    a, b, c, d, f = rows["A"], rows["B"], rows["C"], rows["D"], rows["F"]
    assert (a.slice, a.trial, a.synthetic, a.question) == ("s", 1, False, "question A?")
    assert (a.expected_behavior, a.expected_fact, a.rationale) == ("answer", "f", "why A")
    assert (a.outcome, a.fact, a.text, a.status) == ("answer", "f", "the answer", "passed")
    assert (a.source_revision, a.input_tokens, a.output_tokens) == ("rev-1", 11, 7)
    assert a.latency_ms == 12.5 and a.transcript is not None and a.transcript["reply"] == "r"
    assert a.grader == "structured v1" and a.case_hash is not None
    assert a.case_hash.startswith("sha256:")
    assert (b.outcome, b.abstain_reason, b.text, b.status) == (
        "abstain",
        "out of scope",
        "cannot say",
        "passed",
    )
    assert (c.outcome, c.raw, c.traceback, c.status) == ("error", "{oops", "target.py:3", "error")
    assert c.reason == "error: parse_error: bad"
    assert (d.fact, d.status, d.cached_from) == ("g", "failed", "r-0")
    assert (f.outcome, f.status, f.reason) == (None, "missing", "no recorded outcome")
    assert rows["E"].synthetic is True
    assert all(r.judge is None for r in rows.values())


def test_a_judge_rows_detail_is_kept() -> None:
    case = _case("J")
    record = Record(case_id="J", outcome=Answer(text="t"))
    judgment = Judgment(
        case_id="J",
        status="passed",
        reason="grounded",
        grader="judge",
        grader_version="2",
        score=2.0,
        labels=("grounded=yes",),
    )
    data = Dataset(name="judged", cases=(case,))
    report = build_report(data, [CaseResult(case, 1, record, judgment)], compact=True)
    row = report.cases[0]
    assert row.grader == "judge v2"
    assert row.judge is not None and (row.judge.score, row.judge.labels) == (2, ["grounded=yes"])


def test_case_rows_is_a_read_only_sequence_of_rows() -> None:
    def values(i: int) -> tuple[object, ...]:
        row = CaseRow(
            id=f"C{i}",
            slice="s",
            expected_behavior="answer",
            outcome=None,
            status="missing",
            reason="no recorded outcome",
            grader="assay v1",
        )
        return tuple(getattr(row, name) for name in ROW_FIELDS)

    rows = CaseRows(values(i) for i in range(5))
    assert len(rows) == 5
    assert rows[0].id == "C0" and rows[-1].id == "C4"
    assert [r.id for r in rows[1:3]] == ["C1", "C2"]
    assert [r.id for r in rows] == [f"C{i}" for i in range(5)]
    assert rows[2] == CaseRow.model_validate(rows[2].model_dump())
    assert rows[2].model_fields_set == set(ROW_FIELDS)
    assert "5 rows" in repr(rows)
    with pytest.raises(IndexError):
        rows[5]
    with pytest.raises(ValueError):
        row_of(values(0)[:-1])  # a tuple short of a field is refused, never misplaced
