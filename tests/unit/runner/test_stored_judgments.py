"""A stored run's report reuses the judgments its grader stored, and only those."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay.cases import Case
from assay.grading import Judgment, StructuredGrader
from assay.outcomes import Answer, Error, Record
from assay.runner import report_for_run, run_suite
from assay.store import RunInfo, RunStore, open_store

CASES = tuple(
    Case(id=f"C{i}", slice="s", question=f"q{i}", expected_behavior="answer", expected_fact="f")
    for i in range(3)
)
RECORDS = (
    Record(case_id="C0", trial=1, outcome=Answer(fact="f")),
    Record(case_id="C1", trial=1, outcome=Answer(fact="other")),
    Record(case_id="C2", trial=1, outcome=Error(error_class="Timeout", message="slow")),
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path}/runs.db")
    yield opened
    opened.close()


def _stored_run(store: RunStore, graders: list[dict[str, str]], judged: list[Judgment]) -> str:
    info = RunInfo(
        id="20260101-120000-aaaaaa",
        started_at=datetime(2026, 1, 1, 12, tzinfo=UTC),
        dataset_name="d",
        dataset_version="sha256:x",
        graders=graders,
        assay_version="0.1.0",
    )
    store.create_run(info, CASES)
    store.add_results(info.id, RECORDS[:2], judged)
    store.add_records(info.id, RECORDS[2:])
    return info.id


def _judgment(case_id: str, status: str, grader: str, version: str) -> Judgment:
    return Judgment.model_validate(
        {
            "case_id": case_id,
            "status": status,
            "reason": f"stored by {grader} v{version}",
            "grader": grader,
            "grader_version": version,
        }
    )


def _reasons(store: RunStore, run_id: str) -> dict[str, tuple[str, str, str]]:
    report = report_for_run(store, run_id)
    return {row.id: (row.status, row.reason, row.grader) for row in report.cases}


def test_judgments_of_the_recorded_grader_and_version_are_reused(store: RunStore) -> None:
    grader = StructuredGrader()
    # Statuses the structured grader would not give: the report shows the stored ones.
    judged = [
        _judgment("C0", "failed", grader.name, grader.version),
        _judgment("C1", "passed", grader.name, grader.version),
    ]
    run_id = _stored_run(store, [{"name": grader.name, "version": grader.version}], judged)
    found = _reasons(store, run_id)
    assert found["C0"][:2] == ("failed", f"stored by {grader.name} v{grader.version}")
    assert found["C1"][0] == "passed"
    assert found["C2"][:2] == ("error", "error: Timeout: slow")


def test_a_judgment_of_another_grader_version_is_regraded_never_reused(store: RunStore) -> None:
    grader = StructuredGrader()
    judged = [
        _judgment("C0", "failed", grader.name, "0-old"),
        _judgment("C1", "passed", "someone-else", grader.version),
    ]
    run_id = _stored_run(store, [{"name": grader.name, "version": grader.version}], judged)
    found = _reasons(store, run_id)
    assert found["C0"][0] == "passed" and found["C1"][0] == "failed"
    assert not any("stored by" in reason for _, reason, _ in found.values())
    assert {label for *_, label in found.values()} >= {f"{grader.name} v{grader.version}"}


def test_a_grader_not_installed_keeps_its_judgments_and_grades_nothing_else(
    store: RunStore,
) -> None:
    judged = [_judgment("C0", "failed", "acme-grader", "3")]
    run_id = _stored_run(store, [{"name": "acme-grader", "version": "3"}], judged)
    found = _reasons(store, run_id)
    assert found["C0"][:2] == ("failed", "stored by acme-grader v3")
    assert found["C1"][0] == "ungraded"
    assert "acme-grader v3 is not available here" in found["C1"][1]


def test_a_run_grades_each_record_once(tmp_path: Path, store: RunStore) -> None:
    calls: list[str] = []
    grade = StructuredGrader.grade

    def counted(self: StructuredGrader, case: Case, record: Record) -> Judgment:
        calls.append(case.id)
        return grade(self, case, record)

    lines = [c.model_dump_json() for c in CASES]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntrials: 2\ntarget:\n  type: scripted\n"
        "  default: {kind: answer, fact: f}\n  outcomes: {C2: {fail: http_4xx}}\n"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(StructuredGrader, "grade", counted)
        result = run_suite(suite, store)
        assert sorted(calls) == ["C0", "C0", "C1", "C1"]  # errors are judged by the rule
        again = report_for_run(store, result.run_id)
    assert sorted(calls) == ["C0", "C0", "C1", "C1"]
    assert again == result.report


def test_of_two_graders_judgments_the_current_graders_is_reused(store: RunStore) -> None:
    grader = StructuredGrader()
    judged = [
        _judgment("C0", "failed", grader.name, grader.version),
        _judgment("C1", "failed", grader.name, grader.version),
    ]
    run_id = _stored_run(store, [{"name": grader.name, "version": grader.version}], judged)
    store.add_judgments(run_id, [_judgment("C0", "passed", "another", "1")])
    found = _reasons(store, run_id)
    assert found["C0"][:2] == ("failed", f"stored by {grader.name} v{grader.version}")
