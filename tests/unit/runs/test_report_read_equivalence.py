"""A stored run's report read the fast way (rows made into models without re-validating
them, cases parsed one at a time, rows kept compact, case definitions made when asked)
equals the report read through the validating constructors, in every format.

The reference path is the store's validating row constructors (``record``, ``judgment``),
the cases parsed whole and the report's rows built as ``CaseRow`` models: what a stored
run's report was made from before the fast path existed.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from assay.cases import Case, Dataset, canonical_record
from assay.grading import Judgment
from assay.outcomes import Abstain, Answer, Error, Record, Usage
from assay.render import render
from assay.runs import compare_stored, report_for_run
from assay.store import RunInfo, RunStore, open_store
from assay.store._rows import (
    JUDGMENT_COLUMNS,
    RECORD_COLUMNS,
    judgment,
    judgment_of,
    record,
    record_of,
)
from assay.store._schema import judgments, records, runs

GOLDEN_STORE = Path(__file__).parents[2] / "golden" / "stores" / "runs.db"
FORMATS = ("json", "text", "markdown", "html", "junit")


def _cases(n: int) -> list[Case]:
    cases = []
    for i in range(n):
        abstain = i % 5 == 0
        cases.append(
            Case(
                id=f"C{i:03d}",
                slice=f"slice-{i % 3}",
                question=f"What is the return window for order {i}?",
                expected_behavior="abstain" if abstain else "answer",
                expected_fact=None if abstain else "window_30",
                rationale="policy §2" if i % 2 else None,
                synthetic=i % 11 == 10,
                split="heldout" if i % 4 == 3 else "dev",
                metadata={"n": i} if i % 7 == 0 else {},
            )
        )
    return cases


def _outcome(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.45:
        return Answer(fact="window_30", citations=("doc-1",) if rng.random() < 0.3 else ())
    if roll < 0.55:
        return Answer(fact="window_14", text="14 days")
    if roll < 0.7:
        return Abstain(reason="not sure" if rng.random() < 0.5 else None)
    return Error(
        error_class="timeout", message="30 s", raw="<html>" if rng.random() < 0.2 else None
    )


def _fill(store: RunStore, run_id: str, seed: int, cases: list[Case]) -> None:
    """A run of three trials with every status: answers, abstentions, errors, missing
    case-trials, stored judgments from the run's grader, a stale grader version (graded
    afresh), an ungraded judgment, usage, latency, transcripts and cache notes."""
    rng = random.Random(seed)
    dataset = Dataset("equivalence", tuple(cases))
    info = RunInfo(
        id=run_id,
        started_at=datetime(2026, 11, seed, 9, 30, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted", "model": f"demo-{run_id}"},
        graders=[{"name": "structured", "version": "1"}],
        trials=3,
        assay_version="0.1.0",
    )
    store.create_run(info, dataset)
    batch: list[Record] = []
    judged: list[Judgment] = []
    for case in cases:
        for trial in (1, 2, 3):
            if rng.random() < 0.08:
                continue  # missing
            outcome = _outcome(rng)
            extra: dict[str, Any] = {}
            if rng.random() < 0.2:
                extra["transcript"] = {"request": {"q": case.question}, "reply": "…"}
            if rng.random() < 0.1:
                extra["cache"] = {"hit": True, "run_id": "earlier", "key_version": 2}
            usage = None
            if rng.random() < 0.6:
                usage = Usage(input_tokens=rng.randrange(10, 90), output_tokens=None)
            batch.append(
                Record(
                    case_id=case.id,
                    trial=trial,
                    outcome=outcome,
                    attempts=rng.choice((1, 1, 2)),
                    latency_ms=rng.choice((None, 12, 340.5)),
                    usage=usage,
                    trace_id=f"{rng.getrandbits(64):016x}" if rng.random() < 0.5 else None,
                    extra=extra,
                )
            )
            if isinstance(outcome, Error):
                continue
            roll = rng.random()
            if roll < 0.5:
                passed = isinstance(outcome, Answer) and outcome.fact == case.expected_fact
                judged.append(
                    Judgment(
                        case_id=case.id,
                        trial=trial,
                        status="passed" if passed else "failed",
                        reason="stored verdict",
                        grader="structured",
                        grader_version="1",
                        score=1 if passed else 0.0,
                        labels=("grounded=yes",) if passed else ("grounded=no", "x=1"),
                    )
                )
            elif roll < 0.6:
                judged.append(
                    Judgment(
                        case_id=case.id,
                        trial=trial,
                        status="ungraded",
                        reason="the grader failed: TimeoutError: slow",
                        grader="structured",
                        grader_version="1",
                    )
                )
            elif roll < 0.7:
                judged.append(
                    Judgment(
                        case_id=case.id,
                        trial=trial,
                        status="passed",
                        reason="stale",
                        grader="structured",
                        grader_version="0",
                    )
                )
    store.add_results(run_id, batch, judged)
    store.finish_run(run_id, "completed")


@pytest.fixture(scope="module")
def rich_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunStore]:
    url = f"sqlite:///{tmp_path_factory.mktemp('equivalence') / 'assay.db'}"
    store = open_store(url)
    cases = _cases(60)
    _fill(store, "base", 1, cases)
    _fill(store, "cand", 2, cases)
    store.close()
    opened = open_store(url, create=False)
    yield opened
    opened.close()


def _validated_records(store: RunStore, run_id: str) -> list[Record]:
    query = select(records).where(records.c.run_id == run_id)
    with store.engine.connect() as conn:
        rows = conn.execute(query.order_by(records.c.position, records.c.trial)).mappings()
        return [record(row) for row in rows]


def _validated_judgments(store: RunStore, run_id: str) -> list[Judgment]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(judgments).where(judgments.c.run_id == run_id)).mappings()
        return [judgment(row) for row in rows]


def _reference(store: RunStore, run_id: str) -> Any:
    """The report through the validating constructors, cases parsed whole, rows as models."""
    from assay.runs import _report

    with store.engine.connect() as conn:
        row = conn.execute(select(runs.c.dataset_name, runs.c.cases).where(runs.c.id == run_id))
        name, text = row.one()
    dataset = Dataset(name=name, cases=tuple(Case.model_validate(c) for c in json.loads(text)))
    fresh = RunStore(store.engine, store.url)
    fresh._datasets[run_id] = dataset
    fresh.records = lambda run_id: _validated_records(store, run_id)  # type: ignore[method-assign]

    def graders_judgments(run: str, grader: str, version: str) -> Any:
        return _validated_judgments(store, run)  # StoredGrader filters a list itself

    fresh.graders_judgments = graders_judgments  # type: ignore[method-assign,assignment]
    return _report.report_for_run(fresh, run_id, compact=False)


def _fast(store: RunStore, run_id: str) -> Any:
    store._datasets.clear()
    store._positions.clear()
    return report_for_run(store, run_id, compact=True)


@pytest.mark.parametrize("run_id", ["base", "cand"])
def test_the_fast_report_equals_the_validated_one_in_every_format(
    rich_store: RunStore, run_id: str
) -> None:
    fast, reference = _fast(rich_store, run_id), _reference(rich_store, run_id)
    statuses = reference.statuses
    assert min(statuses.passed, statuses.failed, statuses.error, statuses.missing) > 0
    assert statuses.ungraded > 0 and reference.synthetic is not None
    assert reference.trial_summary is not None and reference.splits is not None
    assert fast == reference
    for fmt in FORMATS:
        assert render(fast, fmt) == render(reference, fmt), fmt


def test_the_golden_store_reports_the_same_either_way(tmp_path: Path) -> None:
    copy = tmp_path / "runs.db"
    shutil.copyfile(GOLDEN_STORE, copy)
    store = open_store(f"sqlite:///{copy}", create=False)
    try:
        for info in store.list_runs():
            fast, reference = _fast(store, info.id), _reference(store, info.id)
            for fmt in FORMATS:
                assert render(fast, fmt) == render(reference, fmt), (info.id, fmt)
    finally:
        store.close()


def test_rows_made_without_validation_equal_validated_ones(rich_store: RunStore) -> None:
    for run_id in ("base", "cand"):
        with rich_store.engine.connect() as conn:
            found = conn.execute(
                select(*[records.c[n] for n in RECORD_COLUMNS]).where(records.c.run_id == run_id)
            ).all()
            verdicts = conn.execute(
                select(*[judgments.c[n] for n in JUDGMENT_COLUMNS]).where(
                    judgments.c.run_id == run_id
                )
            ).all()
        for row in found:
            made, checked = record_of(row), record(dict(zip(RECORD_COLUMNS, row, strict=True)))
            assert made == checked and made.model_fields_set == checked.model_fields_set
            assert made.model_dump_json() == checked.model_dump_json()
        for row in verdicts:
            made_j = judgment_of(row)
            checked_j = judgment(dict(zip(JUDGMENT_COLUMNS, row, strict=True)))
            assert made_j == checked_j and made_j.model_dump_json() == checked_j.model_dump_json()


@pytest.mark.parametrize(
    "row",
    [
        ("", 1, '{"kind":"answer","fact":"f"}', 1, None, None, None, None, None),
        ("C1", 0, '{"kind":"answer","fact":"f"}', 1, None, None, None, None, None),
        ("C1", 1, '{"kind":"answer"}', 1, None, None, None, None, None),
        ("C1", 1, '{"kind":"answer","fact":"f"}', 1, "slow", None, None, None, None),
        ("C1", 1, '{"kind":"answer","fact":"f"}', 1, None, None, None, None, "[1]"),
    ],
)
def test_a_row_of_another_shape_is_refused_as_validation_refuses_it(row: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError):
        record(dict(zip(RECORD_COLUMNS, row, strict=True)))
    with pytest.raises(ValueError):
        record_of(row)


def test_a_comparison_names_changed_fields_from_definitions_made_on_demand(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        cases = _cases(12)
        _fill(store, "base", 1, cases)
        changed = [*cases]
        changed[4] = changed[4].model_copy(update={"rationale": "policy §3"})
        _fill(store, "cand", 2, changed)
        with pytest.raises(Exception, match=r"C004: case definition differs: rationale"):
            compare_stored(store, "base", "cand")
        side_cases = store.load_dataset("cand").cases
        from assay.runs._compared import Definitions

        definitions = Definitions(side_cases)
        assert dict(definitions) == {c.id: canonical_record(c) for c in side_cases}
    finally:
        store.close()


def test_a_report_without_rows_has_every_figure_of_the_full_one(rich_store: RunStore) -> None:
    full = _fast(rich_store, "cand")
    figures = report_for_run(rich_store, "cand", compact=True, rows=False)
    assert len(figures.cases) == 0 and len(full.cases) > 0
    assert figures.model_copy(update={"cases": full.cases}) == full
