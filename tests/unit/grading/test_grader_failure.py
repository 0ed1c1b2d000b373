"""A grader that fails leaves the case ungraded with the reason: never a score, never a crash."""

from __future__ import annotations

from assay.cases import Case
from assay.grading import Judgment, judge_record
from assay.outcomes import Answer, Error, Record
from assay.report import summarize


class Broken:
    name = "broken"
    version = "2"

    def grade(self, case: Case, record: Record) -> Judgment:
        raise RuntimeError("judge reply had no verdict")


CASE = Case(id="C1", slice="s", question="q", expected_behavior="answer", expected_fact="f")


def test_a_failing_grader_gives_ungraded_with_its_reason() -> None:
    judgment = judge_record(CASE, Record(case_id="C1", outcome=Answer(fact="f")), Broken())
    assert judgment.status == "ungraded"
    assert judgment.score is None
    assert (judgment.grader, judgment.grader_version) == ("broken", "2")
    assert "RuntimeError: judge reply had no verdict" in judgment.reason


def test_errors_are_judged_without_asking_the_grader() -> None:
    record = Record(case_id="C1", outcome=Error(error_class="timeout", message="30 s"))
    judgment = judge_record(CASE, record, Broken())
    assert (judgment.status, judgment.reason) == ("error", "error: timeout: 30 s")


def test_summaries_count_a_grader_failure_as_ungraded_not_failed() -> None:
    summary = summarize([CASE], {"C1": Answer(fact="f")}, grader=Broken())
    assert (summary.ungraded, summary.success, summary.statuses.failed) == (1, 0, 0)
    assert summary.task_success.value == 0.0
    assert summary.answered_accuracy.denominator == 1
