"""A stored run whose judge was asked several times about each answer: its report counts
each case-trial once, by its verdict, so its clustered intervals keep the case as the
unit (J repeats are not J times the cases), and it tells the judge's noise apart."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from assay.cases import Case
from assay.grading import Judgment, kept_repeats
from assay.outcomes import Answer, Record
from assay.runs import report_for_run
from assay.store import RunInfo, RunStore, open_store

CASES = tuple(
    Case(id=f"C{i}", slice="s", question=f"q{i}", expected_behavior="answer", expected_fact="f")
    for i in range(6)
)
# each case's two trials, the verdict of each: three cases pass both, one neither, two once
VERDICTS = {"C0": "PP", "C1": "PP", "C2": "PP", "C3": "FF", "C4": "PF", "C5": "FP"}
GRADER = {"name": "a-judge", "version": "1"}


@pytest.fixture
def store(store_url: str) -> Iterator[RunStore]:
    opened = open_store(store_url)
    yield opened
    opened.close()


def _j(case_id: str, trial: int, mark: str) -> Judgment:
    return Judgment(
        case_id=case_id,
        trial=trial,
        status="passed" if mark == "P" else "failed",
        reason="r",
        grader=GRADER["name"],
        grader_version=GRADER["version"],
    )


def _run(store: RunStore, run_id: str, repeats: int) -> str:
    graders = [GRADER | ({"repeats": str(repeats)} if repeats > 1 else {})]
    info = RunInfo(
        id=run_id,
        started_at=datetime(2026, 1, 1, 12, tzinfo=UTC),
        dataset_name="d",
        dataset_version="sha256:x",
        graders=graders,
        trials=2,
        assay_version="0.1.0",
    )
    store.create_run(info, CASES)
    for case_id, marks in VERDICTS.items():
        for trial, mark in enumerate(marks, 1):
            record = Record(case_id=case_id, trial=trial, outcome=Answer(text="t"))
            verdict = _j(case_id, trial, mark)
            # C4's judge is unsure of its first trial's answer: one repeat in J says fail
            again = [verdict] * repeats
            if repeats > 1 and (case_id, trial) == ("C4", 1):
                again[-1] = _j(case_id, trial, "F")
            kept = kept_repeats(again) if repeats > 1 else []
            store.add_results(info.id, [record], [verdict, *kept])
    return info.id


def test_repeats_do_not_shrink_the_clustered_interval(store: RunStore) -> None:
    once = report_for_run(store, _run(store, "20260101-120000-aaaaaa", 1))
    five = report_for_run(store, _run(store, "20260101-120000-bbbbbb", 5))
    assert once.judge_noise is None
    assert five.task_success.denominator == once.task_success.denominator == 12
    assert five.task_success.ci == once.task_success.ci
    assert five.trial_summary is not None and once.trial_summary is not None
    rate, same = five.trial_summary.task_success, once.trial_summary.task_success
    assert (rate.ci, rate.effective_n, rate.cases) == (same.ci, same.effective_n, same.cases)
    assert rate.effective_n is not None and rate.effective_n <= len(CASES)
    noise = five.judge_noise
    assert noise is not None and noise.repeats == 5
    assert (noise.judged, noise.unstable, noise.cases, noise.differing) == (12, 1, 6, 2)
    assert [(f.id, f.trial, f.passed, f.failed) for f in noise.flips] == [("C4", 1, 4, 1)]
    # only the verdicts are the run's judgments; the repeats are read apart
    assert len(store.judgments("20260101-120000-bbbbbb")) == 12
    kept = store.repeat_judgments("20260101-120000-bbbbbb", "a-judge", "1")
    assert len(kept) == 12 and all(len(each) == 5 for each in kept.values())
    assert [j.status for j in kept[("C4", 1)]] == ["passed"] * 4 + ["failed"]
