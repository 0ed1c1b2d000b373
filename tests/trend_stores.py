"""Stored runs of one suite over time, with outcomes chosen case by case, for trend tests."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta

from assay.cases import Case, Dataset
from assay.outcomes import Answer, Record
from assay.store import RunInfo, RunStore, open_store

START = datetime(2026, 11, 1, 2, 0, tzinfo=UTC)


def dataset(cases: int = 40, reworded: Collection[int] = ()) -> Dataset:
    """``cases`` answerable cases C00, C01, ... (slices ``even`` and ``odd``); the cases
    numbered in ``reworded`` carry another question (a new dataset version)."""
    return Dataset(
        name="nightly",
        cases=tuple(
            Case(
                id=f"C{i:02d}",
                slice="even" if i % 2 == 0 else "odd",
                question=f"question {i}" + (" (reworded)" if i in reworded else ""),
                expected_behavior="answer",
                expected_fact=f"fact_{i}",
            )
            for i in range(cases)
        ),
    )


def records(
    data: Dataset, passing: Collection[int], latency_ms: float | None = None
) -> list[Record]:
    """One record per case: the expected fact for the cases numbered in ``passing``, a
    wrong fact for the others."""
    return [
        Record(
            case_id=case.id,
            outcome=Answer(fact=case.expected_fact if i in passing else "wrong"),
            latency_ms=None if latency_ms is None else latency_ms + i,
        )
        for i, case in enumerate(data.cases)
    ]


def add_run(
    store: RunStore,
    run_id: str,
    day: int,
    data: Dataset,
    passing: Collection[int],
    *,
    model: str = "m1",
    suite: str = "nightly",
    latency_ms: float | None = None,
    summary: dict[str, object] | None = None,
    git_commit: str | None = None,
) -> None:
    """Store a completed run of suite ``suite`` started ``day`` days after ``START``."""
    info = RunInfo(
        id=run_id,
        started_at=START + timedelta(days=day),
        suite_path=f"/work/suites/{suite}-file.yaml",
        suite={"name": suite, "dataset": "cases.jsonl", "target": {"type": "scripted"}},
        dataset_name=data.name,
        dataset_version=data.version,
        target={"type": "scripted", "model": model},
        target_hash=f"sha256:{model}",
        graders=[{"name": "structured", "version": "1"}],
        assay_version="0.1.0",
        git_commit=git_commit or f"commit{day:02d}",
    )
    store.create_run(info, data.cases)
    store.add_records(run_id, records(data, passing, latency_ms))
    store.finish_run(run_id, "completed", summary)


# The series of the main tests: two configurations (models m1, m2), two dataset versions.
V1 = dataset()
V2 = dataset(reworded={0})
SERIES: Sequence[tuple[str, int, Dataset, Collection[int], str]] = (
    ("a1", 1, V1, range(30), "m1"),  # 30/40
    ("a2", 2, V1, range(31), "m1"),  # 31/40: the same configuration again
    ("a3", 3, V1, range(30), "m1"),  # 30/40: and again
    ("b1", 4, V1, range(38), "m2"),  # 38/40: new model, 8 fixed
    ("b2", 5, V2, range(38), "m2"),  # a case reworded: a new dataset version
    ("b3", 6, V2, range(30), "m2"),  # 8 broken
)


def fill_series(url: str) -> str:
    """The store at ``url`` holding ``SERIES`` (suite ``nightly``, latencies and cost on
    the m2 runs) and one run of another suite. Returns ``url``."""
    store = open_store(url)
    try:
        for run_id, day, data, passing, model in SERIES:
            extra = model == "m2"
            add_run(
                store,
                run_id,
                day,
                data,
                passing,
                model=model,
                latency_ms=100.0 * day if extra else None,
                summary={"cost_usd": 0.01 * day} if extra else None,
            )
        add_run(store, "other1", 2, V1, range(10), suite="other")
    finally:
        store.close()
    return url
