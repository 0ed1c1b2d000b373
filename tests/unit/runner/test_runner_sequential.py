"""A sequential run: cases drawn in a seeded random order, stopped once its gates are
decided, its figures over the cases drawn, and the same report when read back or resumed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from assay.errors import AssayConfigError
from assay.metrics._sequential import seeded_order
from assay.runner import Overrides, resume_run, run_suite
from assay.runs import report_for_run
from assay.store import RunStore, open_store


def _suite(folder: Path, failing: set[int], gates: str, n: int = 200, extra: str = "") -> Path:
    cases = [
        {
            "id": f"C{i:03d}",
            "slice": "even" if i % 2 == 0 else "odd",
            "question": f"q{i}",
            "expected_behavior": "answer",
            "expected_fact": "f",
        }
        for i in range(n)
    ]
    (folder / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    wrong = ", ".join(f"C{i:03d}: {{kind: answer, fact: g}}" for i in sorted(failing))
    suite = folder / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        f"target: {{type: scripted, default: {{kind: answer, fact: f}}, outcomes: {{{wrong}}}}}\n"
        f"trace: false\nconcurrency: 3\n{extra}gates:\n{gates}"
    )
    return suite


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


FIVE_PERCENT = {i for i in range(200) if i % 20 == 7}  # 10 of 200 fail: 95% pass


def test_a_clear_pass_stops_early_and_says_so(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.7\n")
    result = run_suite(suite, store, overrides=Overrides(until_decided=True, seed=3))
    s = result.report.sequential
    assert s is not None and s.stopped_early and s.verdict == "pass"
    assert s.seed == 3 and s.cases == 200
    assert s.decided_at is not None and s.decided_at <= s.drawn < 200
    assert s.drawn - s.decided_at < 3  # only the cases in flight at the decision were added
    # the cases drawn are the seeded order's first ones; the rest were never run
    order = seeded_order([f"C{i:03d}" for i in range(200)], 3)
    assert s.not_drawn == order[s.drawn :]
    assert result.ran == s.drawn == store.count_records(result.run_id)
    report = result.report
    assert report.total == s.drawn and report.missing == 0
    assert report.task_success.denominator == s.drawn
    assert report.task_success.denominator_name == (
        f"cases drawn, a seeded random sample of {s.drawn} of 200"
    )
    assert result.gates_passed and result.gates[0].message.startswith("task_success = ")
    assert result.status == "completed"


def test_the_report_read_back_and_a_resume_say_the_same(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.7\n")
    result = run_suite(suite, store, overrides=Overrides(until_decided=True, seed=3))
    again = report_for_run(store, result.run_id)
    resumed = resume_run(store, result.run_id, suite=suite)
    for other in (again, resumed.report):
        assert other.sequential == result.report.sequential
        assert other.task_success == result.report.task_success
        assert other.statuses == result.report.statuses
    assert resumed.ran == 0 and resumed.gates_passed


def test_a_clear_fail_fails_the_gate(tmp_path: Path, store: RunStore) -> None:
    half = set(range(0, 200, 2))
    suite = _suite(tmp_path, half, "  - {rule: 'task_success>=0.8', sequential: true}\n")
    result = run_suite(suite, store, overrides=Overrides(seed=1))
    s = result.report.sequential
    assert s is not None and s.stopped_early and s.verdict == "fail"
    assert not result.gates_passed and "lies below 0.8" in result.gates[0].message


def test_a_run_cut_short_never_passes_a_rule_that_is_not_sequential(
    tmp_path: Path, store: RunStore
) -> None:
    gates = "  - {rule: 'task_success>=0.7', sequential: true}\n  - errors==0\n"
    result = run_suite(_suite(tmp_path, FIVE_PERCENT, gates), store, overrides=Overrides(seed=2))
    assert result.report.errors == 0
    assert [g.passed for g in result.gates] == [True, False]
    assert "not sequential" in result.gates[1].message


def test_a_run_not_decided_early_is_exactly_the_fixed_run(tmp_path: Path, store: RunStore) -> None:
    failing = set(range(0, 60, 1))  # 140 of 200 pass: 0.70, exactly the threshold
    suite = _suite(tmp_path, failing, "  - task_success>=0.7\n")
    sequential = run_suite(suite, store, overrides=Overrides(until_decided=True, seed=4))
    fixed = run_suite(suite, store)
    s = sequential.report.sequential
    assert s is not None and not s.stopped_early and s.drawn == 200 and s.verdict is None
    assert s.not_drawn == []
    for name in ("task_success", "answer_coverage", "answered_accuracy", "statuses", "slices"):
        assert getattr(sequential.report, name) == getattr(fixed.report, name)
    assert [g.passed for g in sequential.gates] == [g.passed for g in fixed.gates] == [True]


def test_with_several_trials_a_case_is_the_unit(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.7\n", extra="trials: 3\n")
    result = run_suite(suite, store, overrides=Overrides(until_decided=True, seed=3))
    s = result.report.sequential
    assert s is not None and s.stopped_early
    rule = s.rules[0]
    assert rule.cases == 200 and rule.drawn == s.drawn  # cases, not case-trials
    assert store.count_records(result.run_id) == 3 * s.drawn  # every trial of a case drawn
    single = run_suite(
        _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.7\n"),
        store,
        overrides=Overrides(until_decided=True, seed=3),
    )
    # the scripted target answers every trial alike: the same case scores, the same stop
    assert single.report.sequential is not None
    assert single.report.sequential.decided_at == s.decided_at


def test_an_interrupted_sequential_run_resumes_in_its_order(
    tmp_path: Path, store: RunStore
) -> None:
    suite = _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.7\n")
    whole = run_suite(suite, store, overrides=Overrides(until_decided=True, seed=5))
    assert whole.report.sequential is not None
    # the same run stopped after its first 10 cases (as a Ctrl-C leaves it), then resumed
    first = run_suite(suite, store, overrides=Overrides(until_decided=True, seed=5))
    run_id = first.run_id
    order = seeded_order([f"C{i:03d}" for i in range(200)], 5)
    kept = set(order[:10])
    with store.engine.begin() as conn:
        for case_id in {r.case_id for r in store.records(run_id)} - kept:
            for table in ("records", "judgments"):
                conn.execute(
                    text(f"DELETE FROM {table} WHERE run_id = :r AND case_id = :c"),
                    {"r": run_id, "c": case_id},
                )
    store.set_status(run_id, "interrupted")
    partial = report_for_run(store, run_id)
    assert partial.sequential is not None and not partial.sequential.stopped_early
    assert partial.sequential.drawn == 10 and partial.missing == 190  # still to run
    resumed = resume_run(store, run_id, suite=suite)
    done, expected = resumed.report.sequential, whole.report.sequential
    assert done is not None and done.stopped_early
    # the same cases in the same order: the same decision (cases in flight may differ)
    assert (done.decided_at, done.verdict) == (expected.decided_at, expected.verdict)
    assert done.rules[0].decided_at == expected.rules[0].decided_at


def test_until_decided_needs_a_gate_on_a_case_rate(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, set(), "  - errors==0\n")
    with pytest.raises(AssayConfigError, match="no gate on a case rate"):
        run_suite(suite, store, overrides=Overrides(until_decided=True))
    with pytest.raises(AssayConfigError, match="--seed orders a sequential run"):
        run_suite(suite, store, overrides=Overrides(seed=3))


HALF = set(range(0, 200, 2))  # 100 of 200 fail


def test_a_paired_rule_decides_not_worse_than_a_baseline(tmp_path: Path, store: RunStore) -> None:
    weak = tmp_path / "weak"
    weak.mkdir()
    baseline = run_suite(_suite(weak, HALF, "  - task_success>=0.1\n"), store)
    strong = _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.1\n")
    better = run_suite(
        strong,
        store,
        overrides=Overrides(until_decided=True, seed=1, not_worse_than=baseline.run_id),
    )
    s = better.report.sequential
    assert s is not None and s.stopped_early and s.verdict == "pass"
    paired = s.rules[1]
    assert paired.baseline == baseline.run_id and paired.path == "paired"
    assert paired.cases == 200 and paired.threshold == 0 and paired.alpha == 0.025
    assert paired.score is not None and paired.low is not None and paired.low > 0
    assert [g.rule.text for g in better.gates][1] == f"not worse than {baseline.run_id}"
    assert better.gates_passed
    # the other way round: the weak suite against the strong run fails, early
    worse = run_suite(
        _suite(weak, HALF, "  - task_success>=0.1\n"),
        store,
        overrides=Overrides(until_decided=True, seed=1, not_worse_than=better.run_id),
    )
    section = worse.report.sequential
    assert section is not None and section.verdict == "fail" and section.stopped_early
    # paired over the strong run's cases drawn alone: the cases both runs ran
    assert section.rules[1].cases == s.drawn
    assert not worse.gates_passed and "lies below 0" in worse.gates[1].message


def test_paired_cases_that_agree_carry_no_evidence(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, FIVE_PERCENT, "  - task_success>=0.01\n", n=60)
    baseline = run_suite(suite, store)
    same = run_suite(
        suite,
        store,
        overrides=Overrides(until_decided=True, seed=2, not_worse_than=baseline.run_id),
    )
    s = same.report.sequential
    assert s is not None
    paired = s.rules[1]
    # identical runs: never decided, every case runs, and the full comparison passes
    assert paired.verdict is None and s.drawn == 60 and not s.stopped_early
    assert paired.score == 0 and same.gates_passed
    assert "over all 60 paired cases" in same.gates[1].message


def test_not_worse_than_needs_until_decided_and_shared_cases(
    tmp_path: Path, store: RunStore
) -> None:
    suite = _suite(tmp_path, set(), "  - task_success>=0.5\n", n=10)
    baseline = run_suite(suite, store)
    with pytest.raises(AssayConfigError, match="give --until-decided"):
        run_suite(suite, store, overrides=Overrides(not_worse_than=baseline.run_id))
    other = tmp_path / "other"
    other.mkdir()
    (other / "cases.jsonl").write_text(
        json.dumps(
            {"id": "X", "slice": "s", "question": "q", "expected_behavior": "answer",
             "expected_fact": "f"}
        ) + "\n"
    )  # fmt: skip
    (other / "suite.yaml").write_text(
        "dataset: cases.jsonl\ntarget: {type: scripted, default: {kind: answer, fact: f}}\n"
        "trace: false\n"
    )
    with pytest.raises(AssayConfigError, match="ran none of these cases"):
        run_suite(
            other / "suite.yaml",
            store,
            overrides=Overrides(until_decided=True, not_worse_than=baseline.run_id),
        )
