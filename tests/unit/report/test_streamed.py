"""The report made as records are read equals the report made from every graded record."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.grading._structured import StructuredGrader
from assay.metrics import IntervalSetting
from assay.outcomes import Abstain, Answer, Error, Record, Usage
from assay.outcomes._parse import _plain_record
from assay.render.json import render_json
from assay.render.text import render_text
from assay.report import build_report
from assay.report._streamed import streamed_lines_report, streamed_report

cases = st.lists(
    st.builds(
        lambda i, sl, abstain, fact, synthetic, split: Case(
            id=f"C{i}",
            slice=f"s{sl}",
            question=f"q{i}",
            expected_behavior="abstain" if abstain else "answer",
            expected_fact=None if abstain else fact,
            synthetic=synthetic,
            split=split,
        ),
        st.integers(0, 40),
        st.integers(0, 3),
        st.booleans(),
        st.sampled_from(["f", "g"]),
        st.booleans(),
        st.sampled_from(["dev", "heldout"]),
    ),
    min_size=1,
    max_size=25,
    unique_by=lambda c: c.id,
)
outcomes = st.sampled_from(
    [
        Answer(fact="f"),
        Answer(fact="g"),
        Answer(text="free"),
        Answer(fact="f", text="said"),
        Abstain(),
        Abstain(reason="unsure", text="cannot say"),
        Error(message="boom"),
        Error(error_class="Timeout", raw="partial"),
        Error(),
    ]
)


@settings(max_examples=150, deadline=None)
@given(cases, st.data())
def test_the_streamed_report_is_the_built_report(cases: list[Case], data: st.DataObject) -> None:
    dataset = Dataset(name="d", cases=tuple(cases))
    chosen = data.draw(st.lists(st.sampled_from(cases), unique_by=lambda c: c.id))
    records = [Record(case_id=c.id, outcome=data.draw(outcomes)) for c in chosen]
    interval = IntervalSetting(confidence=0.9, method="wilson")
    streamed = streamed_report(dataset, iter(records), StructuredGrader(), interval=interval)
    assert streamed is not None
    built = build_report(dataset, grade_all(dataset, records), interval=interval, compact=True)
    assert render_json(streamed) == render_json(built)
    assert render_text(streamed) == render_text(built)


def _case(i: int) -> Case:
    return Case(id=f"C{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")


def test_records_it_does_not_cover_make_it_give_up() -> None:
    dataset = Dataset(name="d", cases=(_case(1), _case(2)))
    answer = Answer(fact="f")
    for records in (
        [Record(case_id="C9", outcome=answer)],  # an unknown case
        [Record(case_id="C1", outcome=answer), Record(case_id="C1", outcome=answer)],
        [Record(case_id="C1", trial=2, outcome=answer)],
        [Record(case_id="C1", outcome=answer, usage=Usage(input_tokens=3))],
        [Record(case_id="C1", outcome=answer, latency_ms=4.0)],
        [Record(case_id="C1", outcome=answer, extra={"cache": {"hit": True}})],
    ):
        assert streamed_report(dataset, iter(records), StructuredGrader()) is None


def test_no_record_at_all_reports_every_case_missing() -> None:
    dataset = Dataset(name="d", cases=(_case(1), _case(2)))
    streamed = streamed_report(dataset, iter([]), StructuredGrader())
    assert streamed is not None
    assert render_json(streamed) == render_json(build_report(dataset, grade_all(dataset, [])))


result_lines = st.sampled_from(
    [
        {"kind": "answer", "fact": "f"},
        {"kind": "answer", "fact": "g"},
        {"kind": "answer", "text": "free"},
        {"kind": "answer", "fact": "f", "text": "said"},
        {"kind": "abstain"},
        {"kind": "abstain", "reason": "unsure", "text": "cannot say"},
        {"kind": "error", "message": "boom"},
        {"kind": "error", "class": "Timeout", "raw": "partial"},
        {"kind": "error", "error_class": "http_500", "message": "m"},
        {"kind": "error", "class": "", "message": ""},
        {"kind": "error"},
    ]
)


@settings(max_examples=150, deadline=None)
@given(cases, st.data())
def test_the_report_of_decoded_lines_is_the_report_of_their_records(
    cases: list[Case], data: st.DataObject
) -> None:
    dataset = Dataset(name="d", cases=tuple(cases))
    chosen = data.draw(st.lists(st.sampled_from(cases), unique_by=lambda c: c.id))
    lines = [{"id": c.id, **data.draw(result_lines)} for c in chosen]
    records = [_plain_record(line) for line in lines]
    assert all(isinstance(r, Record) for r in records)
    interval = IntervalSetting(confidence=0.9, method="wilson")
    of_lines = streamed_lines_report(dataset, iter(lines), interval=interval)
    of_records = streamed_report(dataset, iter(records), StructuredGrader(), interval=interval)  # type: ignore[arg-type]
    assert of_lines is not None and of_records is not None
    assert of_lines == of_records
    assert render_json(of_lines) == render_json(of_records)
    assert render_text(of_lines) == render_text(of_records)


def test_lines_of_unknown_or_repeated_cases_make_it_give_up() -> None:
    dataset = Dataset(name="d", cases=(_case(1), _case(2)))
    answer = {"kind": "answer", "fact": "f"}
    assert streamed_lines_report(dataset, [{"id": "C9", **answer}]) is None
    assert streamed_lines_report(dataset, [{"id": "C1", **answer}] * 2) is None
    assert streamed_lines_report(dataset, [{"id": "C2", **answer}]) is not None
