"""A stored run's summary counted by the database equals the summary of grading every
case-trial read back, on SQLite and PostgreSQL: errors, missing and ungraded case-trials,
several trials under each policy, slices, synthetic cases, split, a slice with no
substantive answer, records of unknown cases and extra trials, an unavailable grader,
cases with and without metadata; and the count gives way to grading when a recorded
answer has no judgment of the current grader."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.pg_cluster import ClusterUnavailable, fresh_database, postgres_cluster

from assay.cases import Case, Dataset
from assay.grading import Judgment, StructuredGrader, grade
from assay.metrics import IntervalSetting, Summary, TrialPolicy, summarize_results
from assay.outcomes import Abstain, Answer, Error, Record, Results
from assay.store import RunInfo, RunStore, open_store
from assay.stored import stored_summary
from assay.stored._report import StoredGrader, _fallback, trial_policy
from assay.stored._summary import counted_summary

POLICIES = (None, "mean", "majority", "pass@1", "pass^k", "pass@2")


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    try:
        cluster = postgres_cluster()
        url = cluster.__enter__()
    except ClusterUnavailable as err:
        pytest.skip(str(err))
    try:
        yield url
    finally:
        cluster.__exit__(None, None, None)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'assay.db'}"
    return fresh_database(request.getfixturevalue("postgres_server"))


def _cases(n: int, metadata: bool) -> list[Case]:
    cases = []
    for i in range(n):
        abstain = i % 5 == 0
        synthetic = i % 9 == 8
        cases.append(
            Case(
                id=f"C{i:03d}",
                # "errors-only" gets only error outcomes: no substantive answer in it
                slice="errors-only" if i % 13 == 6 else f"slice-{i % 3}",
                question=f'What is the window for order {i}? "slice":"x"',
                expected_behavior="abstain" if abstain else "answer",
                expected_fact=None if abstain else "window_30",
                synthetic=synthetic,
                split="heldout" if i % 4 == 3 else "dev",
                sources={"slice": "s", "split": "t"} if i % 7 == 1 else None,
                metadata={"n": i, "slice": "nested"} if metadata and i % 6 == 0 else {},
                provenance={"source_case": "C000", "method": "paraphrase"} if synthetic else None,
            )
        )
    return cases


def _outcome(rng: random.Random, case: Case) -> Any:
    if case.slice == "errors-only":
        return Error(error_class="timeout", message="30 s")
    roll = rng.random()
    if roll < 0.45:
        return Answer(fact="window_30")
    if roll < 0.55:
        return Answer(fact="window_14", text="14 days")
    if roll < 0.7:
        return Abstain(reason="not sure")
    return Error(error_class="timeout", message="30 s")


def _fill(
    store: RunStore,
    run_id: str,
    seed: int,
    cases: list[Case],
    trials: int,
    *,
    policy: str = "",
    grader: dict[str, str] | None = None,
    unjudged: bool = False,
) -> None:
    """A run with every status. Every recorded answer has a judgment of the run's grader
    unless ``unjudged`` (then one has a stale version only)."""
    rng = random.Random(seed)
    entry = grader or {"name": "structured", "version": "1"}
    dataset = Dataset("counted", tuple(cases))
    info = RunInfo(
        id=run_id,
        started_at=datetime(2026, 11, seed, 9, 30, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted", "model": "demo"},
        graders=[entry],
        trials=trials,
        trial_policy=policy,
        assay_version="0.1.0",
    )
    store.create_run(info, dataset)
    batch: list[Record] = []
    judged: list[Judgment] = []
    stale = unjudged
    for case in cases:
        for trial in range(1, trials + 1):
            if rng.random() < 0.1:
                continue  # missing
            outcome = _outcome(rng, case)
            batch.append(Record(case_id=case.id, trial=trial, outcome=outcome))
            if isinstance(outcome, Error):
                if rng.random() < 0.3:  # a verdict on an error outcome never counts
                    judged.append(_judgment(case, trial, "passed", entry))
                continue
            if stale:
                judged.append(_judgment(case, trial, "passed", {**entry, "version": "0"}))
                stale = False
                continue
            roll = rng.random()
            if roll < 0.1:
                status = "ungraded"
            elif roll < 0.15:
                status = "missing"
            else:
                good = isinstance(outcome, Answer) and outcome.fact == case.expected_fact
                status = "passed" if good or isinstance(outcome, Abstain) and roll < 0.5 else "failed"
            judged.append(_judgment(case, trial, status, entry))
            if rng.random() < 0.2:  # another grader's verdict is not the run's
                judged.append(_judgment(case, trial, "passed", {"name": "other", "version": "1"}))
    # records the dataset does not ask for: an unknown case, a trial past the run's count
    batch.append(Record(case_id="unknown", trial=1, outcome=Answer(fact="window_30")))
    batch.append(Record(case_id=cases[1].id, trial=trials + 1, outcome=Answer(fact="x")))
    store.add_results(run_id, batch, judged)
    store.finish_run(run_id, "completed")


def _judgment(case: Case, trial: int, status: str, grader: dict[str, str]) -> Judgment:
    return Judgment(
        case_id=case.id,
        trial=trial,
        status=status,  # type: ignore[arg-type]
        reason="stored verdict",
        grader=grader["name"],
        grader_version=grader["version"],
    )


def _graded(store: RunStore, run_id: str, policy: TrialPolicy | None, level: Any) -> Summary:
    """The reference: every case-trial graded from the records read back."""
    info = store.get_run(run_id)
    fallback = _fallback(info)
    judged = store.graders_judgments(info.id, fallback.name, fallback.version)
    graded = grade(
        store.load_dataset(info.id).cases,
        Results(tuple(store.records(info.id))),
        StoredGrader(judged, fallback),
        trials=info.trials,
    )
    chosen = policy if policy is not None else trial_policy(info)
    return summarize_results(graded, interval=level, policy=chosen)


@pytest.mark.parametrize("metadata", [False, True])
def test_counted_summaries_equal_graded_ones(store_url: str, metadata: bool) -> None:
    store = open_store(store_url)
    try:
        cases = _cases(80, metadata)
        _fill(store, "one", 1, cases, 1)
        _fill(store, "three", 2, cases, 3)
        _fill(store, "declared", 3, cases, 4, policy="pass^k")
        _fill(store, "plugin", 4, cases, 2, grader={"name": "not-installed", "version": "7"})
        for run_id in ("one", "three", "declared", "plugin"):
            info = store.get_run(run_id)
            for spec in POLICIES:
                if spec is not None and run_id == "one":
                    continue
                policy = TrialPolicy.parse(spec) if spec is not None else None
                for level in (IntervalSetting(), IntervalSetting(0.9, "wilson")):
                    chosen = policy if policy is not None else trial_policy(info)
                    counted = counted_summary(store, info, interval=level, policy=chosen)
                    assert counted is not None, run_id
                    assert counted == _graded(store, run_id, policy, level), (run_id, spec)
            summary = stored_summary(store, run_id)
            assert summary == _graded(store, run_id, None, IntervalSetting())
            assert summary.synthetic is not None and summary.synthetic.total > 0
            assert summary.slices["errors-only"].statuses.error > 0
            assert summary.statuses.total == summary.total
        one = stored_summary(store, "one")
        assert one.ungraded and one.missing and one.errors
        assert stored_summary(store, "plugin").ungraded > 0
        assert one.trials == 1 and stored_summary(store, "three").trial_summary is not None
    finally:
        store.close()


def test_an_answer_without_the_graders_judgment_is_graded(store_url: str) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "stale", 1, _cases(40, False), 2, unjudged=True)
        info = store.get_run("stale")
        assert counted_summary(store, info) is None
        assert stored_summary(store, "stale") == _graded(store, "stale", None, IntervalSetting())
    finally:
        store.close()


def test_an_empty_run_counts_every_case_missing(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        cases = _cases(10, False)
        info = RunInfo(
            id="empty",
            started_at=datetime(2026, 11, 1, tzinfo=UTC),
            dataset_name="counted",
            dataset_version=Dataset("counted", tuple(cases)).version,
            target={},
            graders=[{"name": StructuredGrader().name, "version": StructuredGrader().version}],
            trials=2,
            assay_version="0.1.0",
        )
        store.create_run(info, cases)
        summary = stored_summary(store, "empty")
        assert summary == _graded(store, "empty", None, IntervalSetting())
        assert summary.missing == summary.total and summary.task_success.value == 0.0
        assert summary.answered_accuracy.value is None  # no substantive answer: n/a
    finally:
        store.close()
