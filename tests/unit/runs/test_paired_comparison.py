"""Two stored runs paired as the store streams them give the comparison of their reports,
byte for byte in every format, on SQLite and PostgreSQL: every status, missing and extra
records, stale and foreign verdicts, slices, synthetic cases, one and several trials, an
unavailable grader, cases with metadata; and the pairing gives way to the reports when
only they can say it (an unjudged answer, the response cache, another dataset version or
trial count), or refuses as they do (another judge)."""

from __future__ import annotations

import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete

from assay.cases import Case, Dataset
from assay.compare import Comparison, ComparisonRefusedError, compare_runs
from assay.grading import Judgment
from assay.metrics import IntervalSetting
from assay.outcomes import Abstain, Answer, Error, Record
from assay.render import render
from assay.runs import run_side
from assay.runs._paired import paired_comparison
from assay.store import RunInfo, RunStore, open_store
from assay.store._schema import case_index

STATUSES = ("passed", "failed", "ungraded", "missing")


def _cases(n: int, *, metadata: bool = False, seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        abstain = rng.random() < 0.2
        synthetic = rng.random() < 0.1
        cases.append(
            Case(
                id=f"C{i:03d}",
                slice=rng.choice(["billing", "returns", 'quoted "slice"']),
                question=f"What is the window for order {i}?",
                expected_behavior="abstain" if abstain else "answer",
                expected_fact=None if abstain else "window_30",
                synthetic=synthetic,
                metadata={"n": i} if metadata and i % 3 == 0 else {},
                provenance={"source_case": "C000", "method": "paraphrase"} if synthetic else None,
            )
        )
    return cases


def _fill(
    store: RunStore,
    run_id: str,
    seed: int,
    cases: list[Case],
    trials: int,
    *,
    grader: dict[str, str] | None = None,
    unjudged: bool = False,
    metadata: dict[str, Any] | None = None,
    model: str = "demo",
) -> None:
    """A run with every status: missing records, errors (some with a verdict, which never
    counts), stored verdicts of every status, stale and foreign verdicts, and records the
    dataset does not ask for. ``unjudged``: one recorded answer has no verdict of the run's
    grader."""
    rng = random.Random(seed)
    entry = grader or {"name": "structured", "version": "1"}
    dataset = Dataset("paired", tuple(cases))
    info = RunInfo(
        id=run_id,
        started_at=datetime(2026, 11, 1 + seed % 27, 9, 30, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted", "model": model},
        graders=[entry],
        trials=trials,
        assay_version="0.1.0",
        metadata=metadata or {},
    )
    store.create_run(info, dataset)
    records: list[Record] = []
    judged: list[Judgment] = []
    left_unjudged = unjudged
    for case in cases:
        for trial in range(1, trials + 1):
            roll = rng.random()
            if roll < 0.1:
                continue  # missing
            if roll < 0.25:
                records.append(Record(case_id=case.id, trial=trial, outcome=Error(message="x")))
                if rng.random() < 0.3:
                    judged.append(_verdict(case.id, trial, "passed", entry))
                continue
            outcome: Any = (
                Abstain(reason="unsure")
                if roll < 0.4
                else Answer(fact=rng.choice(["window_30", "window_14"]), text="days")
            )
            records.append(Record(case_id=case.id, trial=trial, outcome=outcome))
            if left_unjudged:
                left_unjudged = False
                judged.append(_verdict(case.id, trial, "passed", {**entry, "version": "0"}))
                continue
            status = rng.choice((*STATUSES, "passed", "failed"))
            judged.append(_verdict(case.id, trial, status, entry, f"because {roll:.3f}"))
            if rng.random() < 0.2:
                judged.append(_verdict(case.id, trial, "failed", {"name": "other", "version": "1"}))
    records.append(Record(case_id="unknown", trial=1, outcome=Answer(fact="window_30")))
    store.add_results(run_id, records, judged)
    store.finish_run(run_id, "completed")


def _verdict(
    case_id: str, trial: int, status: str, grader: dict[str, str], reason: str = "stored"
) -> Judgment:
    return Judgment(
        case_id=case_id,
        trial=trial,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        grader=grader["name"],
        grader_version=grader["version"],
    )


def _by_reports(store: RunStore, baseline: str, candidate: str, **options: Any) -> Comparison:
    """The reference: both runs' reports built, then paired."""
    interval = options.pop("interval", IntervalSetting())
    sides = [run_side(store, ref, interval) for ref in (baseline, candidate)]
    return compare_runs(sides[0], sides[1], interval=interval, **options)


def _assert_same(store: RunStore, baseline: str, candidate: str, **options: Any) -> Comparison:
    interval = options.get("interval", IntervalSetting())
    streamed = paired_comparison(
        store,
        baseline,
        candidate,
        interval=interval,
        across_graders=options.get("across_graders", False),
    )
    assert streamed is not None
    reference = _by_reports(store, baseline, candidate, **options)
    for fmt in ("json", "text", "markdown"):
        assert render(streamed, fmt) == render(reference, fmt), fmt
    return streamed


@pytest.mark.parametrize("metadata", [False, True])
def test_streamed_pairing_equals_the_reports(store_url: str, metadata: bool) -> None:
    store = open_store(store_url)
    try:
        cases = _cases(60, metadata=metadata, seed=3)
        _fill(store, "alpha", 1, cases, 1)
        _fill(store, "one-b", 2, cases, 1, model="other")
        _fill(store, "three-a", 3, cases, 3)
        _fill(store, "three-b", 4, cases, 3)
        plugin = {"name": "not-installed", "version": "7"}
        _fill(store, "plugin-a", 5, cases, 2, grader=plugin)
        _fill(store, "plugin-b", 6, cases, 2, grader=plugin, unjudged=True)
        for b, c in (("alpha", "one-b"), ("three-a", "three-b"), ("plugin-a", "plugin-b")):
            compared = _assert_same(store, b, c)
            assert compared.paired > 0 and compared.fixed and compared.broken and compared.moved
            assert any(e.reason.startswith("synthetic") for e in compared.excluded)
        _assert_same(store, "one-b", "alpha", interval=IntervalSetting(0.9, "wilson"))
        _assert_same(store, "alp", "one-b")  # a unique prefix names a run
        _assert_same(store, "alpha", "alpha")
        # Runs stored before the case index existed are paired from their cases' snapshot.
        with store.engine.begin() as conn:
            conn.execute(delete(case_index))
        _assert_same(store, "alpha", "one-b")
        _assert_same(store, "three-a", "three-b")
    finally:
        store.close()


def test_what_only_the_reports_can_pair_is_left_to_them(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        cases = _cases(20)
        _fill(store, "base", 1, cases, 1)
        _fill(store, "unjudged", 2, cases, 1, unjudged=True)
        _fill(store, "trials", 3, cases, 2)
        _fill(store, "other-cases", 4, _cases(21), 1)
        _fill(store, "cached", 5, cases, 1, metadata={"cache": {"key_version": 1}})
        interval = IntervalSetting()
        for other in ("unjudged", "trials", "other-cases", "cached", "nosuch"):
            assert paired_comparison(store, "base", other, interval=interval) is None, other
    finally:
        store.close()


def test_another_judge_is_refused_as_the_reports_refuse_it(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        cases = _cases(10)
        judge = {"name": "judge", "version": "m1"}
        _fill(store, "a", 1, cases, 1, grader=judge)
        _fill(store, "b", 2, cases, 1, grader={"name": "judge", "version": "m2"})
        with pytest.raises(ComparisonRefusedError) as streamed:
            paired_comparison(store, "a", "b", interval=IntervalSetting())
        with pytest.raises(ComparisonRefusedError) as reference:
            _by_reports(store, "a", "b")
        assert str(streamed.value) == str(reference.value)
        _assert_same(store, "a", "b", across_graders=True)
    finally:
        store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(0, 8),
    trials=st.integers(1, 3),
    seeds=st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000)),
)
def test_any_two_runs_pair_as_their_reports_do(
    n: int, trials: int, seeds: tuple[int, int, int]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'assay.db'}")
        try:
            cases = _cases(n, seed=seeds[0])
            _fill(store, "a", 1 + seeds[1] % 20, cases, trials)
            _fill(store, "b", 1 + seeds[2] % 20, cases, trials, model="m2")
            _assert_same(store, "a", "b")
        finally:
            store.close()
