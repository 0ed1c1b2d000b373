"""Models made per case-trial share their field-name sets without changing what pydantic
does with them: ``model_fields_set``, ``exclude_unset``, ``model_copy``, copies, pickles."""

from __future__ import annotations

import copy
import pickle

import pytest

from assay.outcomes import Answer, Record
from assay.render.json import render_json, render_json_chunks


def test_instances_given_the_same_fields_share_one_set() -> None:
    a = Record(case_id="A", outcome=Answer(fact="x"))
    b = Record(case_id="B", outcome=Answer(fact="y"))
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    assert a.model_fields_set == {"case_id", "outcome"}
    c = Record(case_id="C", trial=2, outcome=Answer(fact="y"))
    assert c.model_fields_set == {"case_id", "trial", "outcome"}


def test_exclude_unset_still_reads_the_fields_each_instance_was_given() -> None:
    record = Record(case_id="A", outcome=Answer(fact="x"))
    assert record.model_dump(exclude_unset=True) == {
        "case_id": "A",
        "outcome": {"fact": "x"},
    }
    assert Record.model_validate_json(record.model_dump_json()) == record


def test_a_shared_set_never_changes_in_place() -> None:
    record = Record(case_id="A", outcome=Answer(fact="x"))
    with pytest.raises(TypeError):
        record.model_fields_set.add("trial")
    assert record.model_fields_set == {"case_id", "outcome"}


def test_copies_get_their_own_set() -> None:
    record = Record(case_id="A", outcome=Answer(fact="x"))
    changed = record.model_copy(update={"trial": 3})
    assert changed.trial == 3
    assert changed.model_fields_set == {"case_id", "outcome", "trial"}
    assert record.model_fields_set == {"case_id", "outcome"}
    deep = copy.deepcopy(record)
    assert deep == record and deep.model_fields_set == record.model_fields_set
    assert pickle.loads(pickle.dumps(record)) == record


def test_the_json_report_in_pieces_is_the_whole_dump() -> None:
    from assay import build_report
    from assay.cases import Case, Dataset
    from assay.grading import grade_all
    from assay.outcomes import Results

    cases = tuple(
        Case(id=f"C{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in range(4_500)
    )
    records = tuple(Record(case_id=f"C{i}", outcome=Answer(fact="f")) for i in range(0, 4_500, 2))
    data = Dataset(name="d", cases=cases)
    report = build_report(data, grade_all(data, Results(records, (), "r")))
    pieces = list(render_json_chunks(report))
    assert len(pieces) > 3
    assert "".join(pieces) == render_json(report) == report.model_dump_json(indent=2) + "\n"
    empty = report.model_copy(update={"cases": []})
    assert render_json(empty) == empty.model_dump_json(indent=2) + "\n"
