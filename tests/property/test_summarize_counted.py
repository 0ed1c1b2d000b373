"""``summarize`` with the structured grader counts packed verdicts instead of grading each
case-trial into a ``CaseResult``: for any dataset and records (slices, synthetic cases,
splits, accepted facts, answers without a fact key, errors, missing case-trials, trial
counts of their own for real and synthetic cases, any order, any trial policy and
interval) the summary equals the one made by grading every case-trial; results it cannot
judge that way are graded one at a time and fail the same way."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.errors import (
    DuplicateCaseIdError,
    DuplicateResultError,
    TrialNumberError,
    UnknownResultIdError,
)
from assay.grading import StructuredGrader, grade_all
from assay.grading._packed import structured_verdicts
from assay.metrics import IntervalSetting, TrialPolicy, summarize_results
from assay.outcomes import Abstain, Answer, Error, Record, Results
from assay.report import summarize

_REPLIES = st.sampled_from(
    ["missing", "error", "abstain", "expected", "accepted", "other", "unkeyed"]
)


@st.composite
def _inputs(draw: Any) -> tuple[list[Case], list[Record]]:
    n = draw(st.integers(0, 14))
    real_trials = draw(st.integers(1, 3))
    synthetic_trials = draw(st.integers(1, 3))
    cases: list[Case] = []
    records: list[Record] = []
    for i in range(n):
        abstain = draw(st.booleans())
        synthetic = draw(st.booleans())
        accepted = () if abstain else tuple(draw(st.lists(st.sampled_from(["a1", "a2"]))))
        case = Case(
            id=draw(st.sampled_from([f"c{i}", f"case {i}", f"é{i}"])),
            slice=draw(st.sampled_from(["a", "b", "c d"])),
            question="q",
            expected_behavior="abstain" if abstain else "answer",
            expected_fact=None if abstain else draw(st.sampled_from(["f", "a1"])),
            accepted_facts=accepted,
            synthetic=synthetic,
            split=draw(st.sampled_from(["dev", "heldout"])),
        )
        cases.append(case)
        for trial in range(1, (synthetic_trials if synthetic else real_trials) + 1):
            reply = draw(_REPLIES)
            outcome: Any
            if reply == "missing":
                continue
            if reply == "error":
                outcome = Error(error_class="timeout")
            elif reply == "abstain":
                outcome = Abstain()
            elif reply == "unkeyed":
                outcome = Answer(text="free text")
            else:
                fact = {"expected": case.expected_fact or "f", "accepted": "a2", "other": "x"}
                outcome = Answer(fact=fact[reply])
            records.append(Record(case_id=case.id, trial=trial, outcome=outcome))
    random.Random(draw(st.integers(0, 1000))).shuffle(records)
    return cases, records


_POLICIES = st.sampled_from([None, "mean", "majority", "pass@1", "pass@2", "pass^k"])
_INTERVALS = st.sampled_from(
    [IntervalSetting(), IntervalSetting(method="wilson"), IntervalSetting(confidence=0.9)]
)


def _graded(cases: list[Case], records: Any, **kw: Any) -> Any:
    return summarize_results(grade_all(cases, records), **kw)


@settings(max_examples=300, deadline=None)
@given(_inputs(), _POLICIES, _INTERVALS)
def test_the_counted_summary_equals_grading_every_case_trial(
    data: tuple[list[Case], list[Record]], policy: str | None, interval: IntervalSetting
) -> None:
    cases, records = data
    if len({c.id for c in cases}) < len(cases):
        with pytest.raises(DuplicateCaseIdError):
            summarize(cases, records)
        return
    assert structured_verdicts(cases, records) is not None  # the counted path is taken
    chosen = TrialPolicy.parse(policy) if policy else None
    try:
        expected = _graded(cases, records, interval=interval, policy=chosen)
    except ValueError as err:  # a policy the trials cannot take
        with pytest.raises(type(err), match=str(err)):
            summarize(cases, records, interval=interval, policy=chosen)
        return
    assert summarize(cases, records, interval=interval, policy=chosen) == expected
    assert summarize(Dataset("d", tuple(cases)), iter(records), policy=chosen) == _graded(
        cases, records, policy=chosen
    )
    assert summarize(cases, Results(tuple(records)), grader=StructuredGrader()) == _graded(
        cases, records
    )


@settings(max_examples=100, deadline=None)
@given(_inputs(), st.integers(0, 10_000), st.sampled_from(["unknown", "repeated"]))
def test_results_it_cannot_count_are_graded_and_fail_as_grading_fails(
    data: tuple[list[Case], list[Record]], pick: int, problem: str
) -> None:
    cases, records = data
    if len({c.id for c in cases}) < len(cases) or not records:
        return
    if problem == "unknown":
        records = [*records, Record(case_id="nowhere", outcome=Abstain())]
        error: type[Exception] = UnknownResultIdError
    else:
        records = [*records, records[pick % len(records)]]
        error = DuplicateResultError
    assert structured_verdicts(cases, records) is None
    with pytest.raises(error) as graded:
        grade_all(cases, records)
    with pytest.raises(error) as counted:
        summarize(cases, records)
    assert str(counted.value) == str(graded.value)


class _Lenient(StructuredGrader):
    """Another grader (a subclass): graded by it, never counted as the structured one."""

    def grade(self, case: Case, record: Record) -> Any:
        judgment = super().grade(case, record)
        return judgment.model_copy(update={"status": "passed"})


def test_another_grader_is_asked_for_every_case_trial() -> None:
    cases = [Case(id="a", slice="s", question="q", expected_behavior="answer", expected_fact="f")]
    records = [Record(case_id="a", outcome=Answer(fact="wrong"))]
    assert summarize(cases, records).success == 0
    assert summarize(cases, records, grader=_Lenient()).success == 1


def test_a_mapping_of_outcomes_and_an_empty_dataset_are_counted_as_graded() -> None:
    cases = [
        Case(id="a", slice="s", question="q", expected_behavior="answer", expected_fact="f"),
        Case(id="b", slice="t", question="q", expected_behavior="abstain", synthetic=True),
    ]
    given = {"a": Answer(fact="f"), "b": Answer(fact="f")}
    assert summarize(cases, given) == _graded(cases, given)
    assert summarize([], []) == _graded([], [])


def test_plain_records_are_counted_without_grading_each_case_trial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assay.report import _summarize

    cases = [
        Case(id=f"c{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in range(3)
    ]
    records = [
        Record(case_id="c0", outcome=Answer(fact="f")),
        Record(case_id="c2", outcome=Abstain()),
    ]
    expected = _graded(cases, records)
    monkeypatch.setattr(_summarize, "grade_all", None)  # calling it would fail
    assert summarize(cases, records) == expected
    assert summarize(cases, records, grader=StructuredGrader()) == expected


@settings(max_examples=60, deadline=None)
@given(_inputs(), st.sampled_from(["none", "unknown", "repeated case id"]))
def test_ids_whose_hashes_collide_are_looked_up_in_a_dictionary(
    data: tuple[list[Case], list[Record]], problem: str
) -> None:
    """Every id hashed alike: the records' cases are found (or not) all the same."""
    from assay.grading import _packed

    cases, records = data
    if len({c.id for c in cases}) < len(cases) or not cases:
        return
    if problem == "unknown":
        records = [*records, Record(case_id="nowhere", outcome=Abstain())]
    elif problem == "repeated case id":
        cases = [*cases, cases[0]]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_packed, "hash", lambda text: 7, raising=False)
        verdicts = structured_verdicts(cases, records)
    expected = structured_verdicts(cases, records)
    if problem == "none":
        assert verdicts is not None and expected is not None
        assert verdicts.values.tolist() == expected.values.tolist()
    else:
        assert verdicts is None and expected is None


@pytest.mark.parametrize("trial", [1_001, 2**40, 2**70])
@pytest.mark.parametrize("grader", [None, "lenient"])
def test_a_stray_trial_number_far_beyond_the_records_is_refused_not_looped_over(
    trial: int, grader: str | None
) -> None:
    """Grading would make a ``CaseResult`` for every trial up to the stray one, for every
    case: counted or graded, it is refused at once, naming the case and trial."""
    cases = [
        Case(id="a", slice="s", question="q", expected_behavior="answer", expected_fact="f"),
        Case(id="b", slice="s", question="q", expected_behavior="abstain"),
    ]
    records = [
        Record(case_id="a", trial=trial, outcome=Abstain()),
        Record(case_id="b", outcome=Abstain()),
    ]
    assert structured_verdicts(cases, records) is None
    chosen = _Lenient() if grader else None
    with pytest.raises(TrialNumberError) as refused:
        summarize(cases, records, grader=chosen)
    assert f"a (trial {trial})" in str(refused.value)
    assert "2 results over 2 cases may number at most 1,000 trials" in str(refused.value)
    with pytest.raises(TrialNumberError):
        grade_all(cases, records)


def test_trials_up_to_what_the_records_allow_are_counted() -> None:
    """A thousand trials of one case, only the last recorded: allowed (the most a suite
    may declare), every other trial missing."""
    cases = [Case(id="a", slice="s", question="q", expected_behavior="abstain")]
    records = [Record(case_id="a", trial=1_000, outcome=Abstain())]
    summary = summarize(cases, records)
    assert summary == summarize_results(grade_all(cases, records))
    assert (summary.trials, summary.success, summary.missing) == (1_000, 1, 999)


@pytest.mark.parametrize("cases", [2, 400])
def test_a_repeated_case_trial_is_found_among_few_records_or_many(cases: int) -> None:
    # two records of 400 cases are sorted to find the repeat; of two cases, counted
    dataset = [
        Case(id=f"c{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in range(cases)
    ]
    once = Record(case_id="c1", trial=2, outcome=Answer(fact="f"))
    assert structured_verdicts(dataset, [once, Record(case_id="c0", outcome=Abstain())])
    assert structured_verdicts(dataset, [once, once]) is None
    with pytest.raises(DuplicateResultError):
        summarize(dataset, [once, once])
