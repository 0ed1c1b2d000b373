"""The corrected pass rate over several trials per case: the run's part of its interval
clustered by case (the design effect of the raw rate's clustered interval), its coverage
checked by a seeded simulation with correlated trials."""

from __future__ import annotations

import numpy as np
import pytest

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.metrics import case_design_effect, effective_interval
from assay.metrics._correction import corrected_rate, lang_reiczigel
from assay.outcomes import Answer, Record
from assay.report import build_report, trials_design_effect


def test_a_design_effect_of_one_changes_nothing() -> None:
    assert lang_reiczigel(60, 100, 45, 50, 32, 40) == lang_reiczigel(
        60, 100, 45, 50, 32, 40, design_effect=1.0
    )
    with pytest.raises(ValueError, match="at least 1"):
        lang_reiczigel(60, 100, 45, 50, 32, 40, design_effect=0.5)


def test_a_design_effect_widens_only_the_runs_part() -> None:
    plain = corrected_rate(180, 300, 100, 10, 100, 15)
    clustered = corrected_rate(180, 300, 100, 10, 100, 15, design_effect=3.0)
    assert clustered.value == plain.value  # the estimate is Rogan–Gladen's either way
    assert plain.interval is not None and clustered.interval is not None
    assert clustered.interval[0] < plain.interval[0] < plain.interval[1] < clustered.interval[1]
    # 300 case-trials with a design effect of 3 are 100 independent ones
    alone = corrected_rate(60, 100, 100, 10, 100, 15)
    assert clustered.interval == pytest.approx(alone.interval, abs=1e-12)


def _report(passes: list[int], trials: int) -> object:
    cases = tuple(
        Case(id=f"C{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in range(len(passes))
    )
    records = [
        Record(case_id=c.id, trial=t, outcome=Answer(fact="f" if t <= p else "g"))
        for c, p in zip(cases, passes, strict=True)
        for t in range(1, trials + 1)
    ]
    data = Dataset(name="d", cases=cases)
    return build_report(data, grade_all(data, records))


def test_the_design_effect_is_the_one_of_task_successs_clustered_interval() -> None:
    report = _report([3, 3, 0, 0, 3, 1, 2, 0, 3, 3], 3)
    ts = report.task_success  # type: ignore[attr-defined]
    deff = trials_design_effect(ts, report.trial_summary)  # type: ignore[attr-defined]
    assert 1 < deff <= 3
    effective = ts.denominator / deff
    assert effective_interval(ts.value * effective, effective) == pytest.approx(ts.ci)
    single = _report([1, 0, 1], 1)
    assert trials_design_effect(single.task_success, single.trial_summary) == 1.0  # type: ignore[attr-defined]


def _coverage(cases: int, icc: float, reps: int, seed: int) -> tuple[float, float]:
    """Coverage of the corrected interval without and with the design effect: 3 trials a
    case, each case's true pass probability drawn from a beta of mean 0.6 and intraclass
    correlation ``icc``, a judge of sensitivity 0.9 and specificity 0.85, 300 labels of
    each kind."""
    rng = np.random.default_rng(seed)
    truth, k, se, sp, labels = 0.6, 3, 0.9, 0.85, 300
    a, b = truth * (1 - icc) / icc, (1 - truth) * (1 - icc) / icc
    covered = [0, 0]
    counted = 0
    for _ in range(reps):
        p = rng.beta(a, b, cases)
        right = rng.random((cases, k)) < p[:, None]
        verdict = np.where(right, rng.random((cases, k)) < se, rng.random((cases, k)) >= sp)
        hits = verdict.sum(axis=1).tolist()
        rejects, accepts = rng.binomial(labels, 1 - se), rng.binomial(labels, 1 - sp)
        found = [
            corrected_rate(
                sum(hits), cases * k, labels, int(rejects), labels, int(accepts), design_effect=d
            )
            for d in (1.0, case_design_effect(hits, [k] * cases))
        ]
        if any(f.interval is None for f in found):
            continue
        counted += 1
        for i, f in enumerate(found):
            assert f.interval is not None
            covered[i] += f.interval[0] <= truth <= f.interval[1]
    return covered[0] / counted, covered[1] / counted


def test_with_correlated_trials_only_the_clustered_interval_keeps_its_coverage() -> None:
    naive, clustered = _coverage(cases=50, icc=0.6, reps=600, seed=7)
    assert naive < 0.91  # the case-trials taken as independent: too narrow
    assert clustered >= 0.935
