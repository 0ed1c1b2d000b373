"""Reports built from the seed fixture (examples/policy), shared by the report tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.load import load_dataset, load_results
from assay.outcomes import Answer, Record
from assay.report import Report, build_report

EXAMPLES = Path(__file__).parents[3] / "examples" / "policy"


def seed_report(dataset: str = "policy.jsonl") -> Report:
    data = load_dataset(EXAMPLES / dataset)
    return build_report(data, grade_all(data, load_results(EXAMPLES / "results.jsonl")))


@pytest.fixture
def report() -> Report:
    """The six-case seed report: 2/6 passed, one error, answered accuracy 1/3."""
    return seed_report()


@pytest.fixture
def report_e7() -> Report:
    """The seed plus E7, which has no recorded output (missing)."""
    return seed_report("policy-e7.jsonl")


@pytest.fixture
def abstain_only() -> Report:
    """A report with no substantive answers: answered accuracy is n/a."""
    case = Case(id="A1", slice="missing", question="q?", expected_behavior="abstain")
    data = Dataset(name="abstain", cases=(case,))
    return build_report(data, grade_all(data, []))


def synthetic_report() -> Report:
    """One real and one synthetic case, both answered correctly."""
    cases = (
        Case(id="R1", slice="s", question="q1", expected_behavior="answer", expected_fact="f"),
        Case(
            id="S1",
            slice="s",
            question="q2",
            expected_behavior="answer",
            expected_fact="f",
            synthetic=True,
        ),
    )
    data = Dataset(name="mixed", cases=cases)
    records = [Record(case_id=c.id, outcome=Answer(fact="f")) for c in cases]
    return build_report(data, grade_all(data, records))
