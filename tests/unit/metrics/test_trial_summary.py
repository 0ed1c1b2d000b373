"""Repeated trials in summaries: the policy, consistency, flaky cases and clustered intervals."""

from __future__ import annotations

import pytest

from assay.cases import Case, Dataset
from assay.metrics import TrialPolicy, clopper_pearson
from assay.outcomes import Abstain, Answer, Record
from assay.report import summarize

CASES = tuple(
    Case(id=f"C{i}", slice="a" if i < 3 else "b", question="q?", expected_behavior="abstain")
    for i in range(6)
)
DATASET = Dataset(name="trials", cases=CASES)
# Passing trials per case out of 3: C0 3, C1 3, C2 0, C3 2, C4 1, C5 0.
PASSES = {"C0": 3, "C1": 3, "C2": 0, "C3": 2, "C4": 1, "C5": 0}


def _records(k: int = 3) -> list[Record]:
    out = []
    for cid, passed in PASSES.items():
        for t in range(1, k + 1):
            outcome = Abstain() if t <= passed else Answer(fact="x")
            out.append(Record(case_id=cid, trial=t, outcome=outcome))
    return out


def test_one_trial_has_no_trial_summary_and_plain_intervals() -> None:
    records = [Record(case_id=c.id, outcome=Abstain()) for c in CASES[:4]]
    summary = summarize(DATASET, records)
    assert summary.trial_summary is None
    assert summary.task_success.ci == pytest.approx(clopper_pearson(4, 6))
    assert summary.task_success.denominator_name == "cases in the dataset"


def test_trials_are_never_treated_as_independent_cases() -> None:
    summary = summarize(DATASET, _records())
    assert summary.trials == 3
    assert summary.task_success.numerator == 9
    assert summary.task_success.denominator == 18
    assert summary.task_success.denominator_name == "case-trials"
    naive = clopper_pearson(9, 18)
    low, high = summary.task_success.ci or (0.0, 0.0)
    assert high - low > naive[1] - naive[0]


def test_default_policy_is_the_mean_and_is_stated() -> None:
    t = summarize(DATASET, _records()).trial_summary
    assert t is not None
    assert t.policy == "mean"
    assert t.label == "mean of 3 trials"
    assert t.task_success.value == pytest.approx(9 / 18)
    assert t.task_success.design_effect is not None and t.task_success.design_effect > 1


def test_consistency_and_flaky_cases() -> None:
    t = summarize(DATASET, _records()).trial_summary
    assert t is not None
    assert {c.id: c.passed for c in t.consistency} == PASSES
    assert t.flaky == ["C3", "C4"]
    assert t.passed_counts == {"3/3": 2, "2/3": 1, "1/3": 1, "0/3": 2}


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("pass^3", 2 / 6),
        ("majority", 3 / 6),
        ("pass@3", 4 / 6),
        ("pass@1", 9 / 18),
        ("pass@2", (1 + 1 + 0 + 1 + 2 / 3 + 0) / 6),
    ],
)
def test_task_success_under_each_policy(policy: str, expected: float) -> None:
    t = summarize(DATASET, _records(), policy=TrialPolicy.parse(policy, 3)).trial_summary
    assert t is not None
    assert t.task_success.value == pytest.approx(expected)
    assert t.task_success.ci is not None
    assert t.task_success.ci[0] <= expected <= t.task_success.ci[1]


def test_binary_policies_get_the_plain_interval_over_cases() -> None:
    t = summarize(DATASET, _records(), policy=TrialPolicy.parse("pass^3", 3)).trial_summary
    assert t is not None
    assert t.task_success.ci == pytest.approx(clopper_pearson(2, 6))
    assert t.slices["a"].value == pytest.approx(2 / 3)


def test_missing_trials_count_as_missing_not_as_passes() -> None:
    records = [r for r in _records() if not (r.case_id == "C0" and r.trial == 3)]
    summary = summarize(DATASET, records)
    assert summary.missing == 1
    t = summary.trial_summary
    assert t is not None
    c0 = {c.id: c for c in t.consistency}["C0"]
    assert (c0.passed, c0.missing, c0.trials) == (2, 1, 3)
    # Both recorded trials passed: a missing trial is no failure, so C0 is not flaky.
    assert "C0" not in t.flaky


def _report(records: list[Record], policy: str | None = None) -> str:
    from assay.grading import grade_all
    from assay.render import render
    from assay.report import build_report

    chosen = TrialPolicy.parse(policy, 3) if policy else None
    report = build_report(DATASET, grade_all(DATASET, records), policy=chosen)
    return render(report, "text") + render(report, "markdown")


def test_single_trial_reports_say_nothing_about_trials() -> None:
    out = _report([Record(case_id=c.id, outcome=Abstain()) for c in CASES])
    assert "clustered" not in out
    assert "Trial policy" not in out
    assert "(per trial)" not in out


def test_reports_print_the_policy_beside_every_trial_figure() -> None:
    out = _report(_records(), "pass^3")
    assert "Trial policy: pass^3 of 3 trials" in out
    assert "Task success (per trial)" in out
    assert "clustered by case" in out
    assert "2/6 cases = 33.3%" in out
    assert "(pass^3 of 3 trials)" in out
    assert "Flaky cases (some but not all recorded trials passed): C3, C4" in out
