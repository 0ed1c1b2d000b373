"""A long list of non-passing cases is grouped by status and reason in the text report,
every case still named once; a short one stays a table."""

from __future__ import annotations

import re

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.outcomes import Abstain, Record
from assay.render.text import TABLE_ROWS, render_text
from assay.report import build_report


def _dataset(n: int) -> Dataset:
    cases = [
        Case(
            id=f"K{i}",
            slice="s",
            question="q",
            expected_behavior="answer",
            expected_fact="f",
        )
        for i in range(n)
    ]
    return Dataset("long", tuple(cases))


def _text(n: int, recorded: int) -> str:
    data = _dataset(n)
    records = [Record(case_id=f"K{i}", outcome=Abstain()) for i in range(recorded)]
    return render_text(build_report(data, grade_all(data, records)))


def test_a_long_list_is_grouped_and_names_every_case_once() -> None:
    n = TABLE_ROWS * 3
    text = _text(n, recorded=TABLE_ROWS)  # 100 failed (abstained), 200 missing
    assert f"Cases not passed: {n:,}, grouped by status and reason" in text
    assert "missing (200): no recorded outcome" in text
    assert re.search(r"failed \(100\): expected an answer", text)
    for i in range(n):
        assert len(re.findall(rf"\bK{i}\b", text)) == 1, i


def test_a_short_list_stays_a_table() -> None:
    text = _text(10, recorded=0)
    assert "grouped by status and reason" not in text
    assert "Case" in text and "Reason" in text
