"""The sequential monitor: cases tested in the seeded order, whatever order their trials
finish in; a case is the unit, scored under the run's trial policy; a slice's rule counts
its slice's cases alone."""

from __future__ import annotations

from typing import Any

import pytest

from assay.cases import Case
from assay.errors import AssayConfigError
from assay.report import SequentialMonitor


def _cases(n: int) -> list[Case]:
    return [
        Case(
            id=f"C{i}",
            slice="a" if i % 2 else "b",
            question="q",
            expected_behavior="answer",
            expected_fact="f",
            synthetic=i == 0,
        )
        for i in range(n)
    ]


def _rule(**given: Any) -> dict[str, Any]:
    rule = {
        "rule": "task_success>=0.5",
        "path": "task_success",
        "slice": None,
        "per_trial": False,
        "policy": "mean",
        "op": ">=",
        "threshold": 0.5,
    }
    return rule | given


def test_a_case_is_tested_only_once_every_case_before_it_is_complete() -> None:
    cases = _cases(6)
    monitor = SequentialMonitor({"seed": 1, "alpha": 0.05, "rules": [_rule()]}, cases, 2)
    first, second = monitor.order[0], monitor.order[1]
    monitor.add(second, True)
    monitor.add(second, True)
    monitor.advance()
    assert monitor.position == 0  # the first case drawn has not finished
    monitor.add(first, True)
    monitor.advance()
    assert monitor.position == 0  # one trial of two
    monitor.add(first, False)
    monitor.advance()
    assert monitor.position == 2
    test = monitor.tests[0]
    assert test is not None
    real = [c for c in (first, second) if c != "C0"]  # the synthetic case is never counted
    assert test.drawn == len(real) and test.population == 5


def test_the_trial_policy_scores_a_case() -> None:
    cases = _cases(3)[1:]
    settings = {"seed": 2, "alpha": 0.05, "rules": [_rule(policy="pass^3")]}
    monitor = SequentialMonitor(settings, cases, 3)
    for case in monitor.order:
        for passed in (True, True, False):
            monitor.add(case, passed)
    monitor.advance()
    test = monitor.tests[0]
    assert test is not None and test.scores == (0.0, 0.0)  # pass^3 needs every trial
    mean = SequentialMonitor({"seed": 2, "alpha": 0.05, "rules": [_rule()]}, cases, 3)
    for case in mean.order:
        for passed in (True, True, False):
            mean.add(case, passed)
    mean.advance()
    assert mean.tests[0] is not None
    assert mean.tests[0].scores == pytest.approx((2 / 3, 2 / 3))


def test_a_slice_rule_counts_its_slice_and_shares_alpha() -> None:
    settings = {
        "seed": 3,
        "alpha": 0.05,
        "rules": [_rule(), _rule(rule="slice[a].task_success>=0.5", slice="a", per_trial=True)],
    }
    monitor = SequentialMonitor(settings, _cases(10), 1)
    whole, sliced = monitor.tests
    assert whole is not None and sliced is not None
    assert (whole.population, sliced.population) == (9, 5)
    assert whole.alpha == sliced.alpha == 0.025


def test_a_sequential_run_needs_a_rule() -> None:
    with pytest.raises(AssayConfigError, match="at least one sequential rule"):
        SequentialMonitor({"seed": 1, "alpha": 0.05, "rules": []}, _cases(3), 1)
