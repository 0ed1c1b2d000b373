"""A report holding only the rows its text and Markdown renderings list (``KeptRows``)
renders them as the report holding every row does, byte for byte, and refuses to be read
as every row."""

from __future__ import annotations

import pytest

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.outcomes import Abstain, Answer, Error, Record
from assay.render import render
from assay.report import Report, build_report
from assay.report._kept import KeptRows, kept_values
from assay.report._rows import CaseRows, briefs_where, rows_of


def _report(cases: int, wrong_every: int) -> Report:
    """``cases`` cases, every ``wrong_every``-th not passed (by turns failed, an error,
    missing), a few synthetic, one answer a cache hit."""
    made, records = [], []
    for i in range(cases):
        made.append(
            Case(
                id=f"K{i}",
                slice=f"s{i % 3}",
                question=f"q {i}?",
                expected_behavior="abstain" if i % 5 == 0 else "answer",
                expected_fact=None if i % 5 == 0 else "f",
                synthetic=i % 23 == 4,
            )
        )
        turn = (i // wrong_every) % 3
        if i % 5 == 0:
            outcome: Answer | Abstain | Error = Abstain(reason="unsure")
        else:
            outcome = Answer(fact="f")
        extra = {"cache": {"hit": True, "run_id": "r-0"}} if i == 1 else {}
        if i % wrong_every == 1:
            if turn == 2:
                continue  # missing
            outcome = Answer(fact="g") if turn == 0 else Error(error_class="timeout", message="t")
        records.append(Record(case_id=f"K{i}", outcome=outcome, extra=extra))
    data = Dataset(name="kept", cases=tuple(made))
    return build_report(data, grade_all(data, records), compact=True)


def _kept(report: Report) -> Report:
    rows = report.cases
    assert isinstance(rows, CaseRows)
    kept = KeptRows(kept_values(list(rows.values())), len(rows))
    return report.model_copy(update={"cases": kept})


@pytest.mark.parametrize(
    ("cases", "wrong_every"),
    [(60, 4), (400, 2)],  # a table of the cases not passed; a long list, grouped
)
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_kept_rows_render_as_every_row(cases: int, wrong_every: int, fmt: str) -> None:
    report = _report(cases, wrong_every)
    assert report.synthetic is not None and report.statuses.missing
    shown = render(report, fmt)
    assert render(_kept(report), fmt) == shown
    assert render(_kept(report), fmt, color=True) == render(report, fmt, color=True)
    long = cases > 100
    assert ("grouped by status and reason" in shown) is long


def test_the_kept_rows_are_those_not_passed_and_the_synthetic_ones() -> None:
    report = _report(60, 4)
    kept = _kept(report).cases
    assert len(kept) == 60

    def not_passed(status: str, synthetic: bool) -> bool:
        return not synthetic and status != "passed"

    assert list(briefs_where(kept, not_passed)) == list(briefs_where(report.cases, not_passed))
    picked = list(briefs_where(kept, not_passed))[:3]
    assert rows_of(kept, not_passed, picked) == rows_of(report.cases, not_passed, picked)
    assert [r.id for r in kept.where(lambda status, synthetic: synthetic)] == ["K4", "K27", "K50"]  # type: ignore[attr-defined]


def test_every_row_is_not_there_to_read() -> None:
    kept = _kept(_report(60, 4)).cases
    with pytest.raises(TypeError, match="only the rows"):
        list(kept)
    with pytest.raises(TypeError, match="only the rows"):
        kept[0]
    with pytest.raises(ValueError, match="passed are not kept"):
        list(kept.where(lambda status, synthetic: True))  # type: ignore[attr-defined]
