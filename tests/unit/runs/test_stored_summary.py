"""A stored run's summary counted by the database equals the summary of grading every
case-trial read back, on SQLite and PostgreSQL: errors, missing and ungraded case-trials,
several trials under each policy, slices, synthetic cases, split, a slice with no
substantive answer, records of unknown cases and extra trials, an unavailable grader,
cases with and without metadata; and the count gives way to grading when a recorded
answer has no judgment of the current grader. Runs stored before the case index existed
(schema version 4) are counted from their cases' snapshot, to the same summary."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assay.cases import Case, Dataset
from assay.grading import Judgment, StructuredGrader, grade
from assay.metrics import IntervalSetting, Summary, TrialPolicy, summarize_results
from assay.outcomes import Abstain, Answer, Error, Record, Results, Usage
from assay.runs import stored_summary
from assay.runs._run_settings import StoredGrader, run_grader, trial_policy
from assay.runs._summary import counted_summary
from assay.store import RunInfo, RunStore, open_store

POLICIES = (None, "mean", "majority", "pass@1", "pass^k", "pass@2")


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
                kept = good or (isinstance(outcome, Abstain) and roll < 0.5)
                status = "passed" if kept else "failed"
            judged.append(_judgment(case, trial, status, entry))
            if rng.random() < 0.2:  # another grader's verdict is not the run's
                judged.append(_judgment(case, trial, "passed", {"name": "other", "version": "1"}))
    # a record the dataset does not ask for: an unknown case (a trial past the run's count
    # is refused when written and named when read: tests/unit/store/test_damaged_rows.py)
    batch.append(Record(case_id="unknown", trial=1, outcome=Answer(fact="window_30")))
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


def _drop_index(store: RunStore, run_id: str) -> None:
    """Run ``run_id`` as stored before the case index existed: without its row."""
    from assay.store._schema import case_index

    with store.engine.begin() as conn:
        conn.execute(case_index.delete().where(case_index.c.run_id == run_id))


def _graded(store: RunStore, run_id: str, policy: TrialPolicy | None, level: Any) -> Summary:
    """The reference: every case-trial graded from the records read back."""
    info = store.get_run(run_id)
    fallback = run_grader(info)
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
        for run_id in ("one", "three", "declared", "plugin"):
            indexed = stored_summary(store, run_id)
            _drop_index(store, run_id)
            assert stored_summary(store, run_id) == indexed, run_id
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


def _plain_cases(n: int, split: str) -> list[Case]:
    return [
        Case(
            id=f"P{i:03d}",
            slice=f"slice-{i % 4}",
            question=f"What is the window for order {i}?",
            expected_behavior="abstain" if i % 5 == 0 else "answer",
            expected_fact=None if i % 5 == 0 else "window_30",
            split=split,  # type: ignore[arg-type]
            source_revision=f"rev-{i % 2}" if i % 3 else None,
        )
        for i in range(n)
    ]


def _fill_plain(store: RunStore, run_id: str, trials: int, split: str, priced: bool) -> None:
    """A run whose every figure the database can count: usage, latency and a price table."""
    rng = random.Random(trials)
    cases = _plain_cases(50, split)
    dataset = Dataset("plain", tuple(cases))
    metadata: dict[str, Any] = {"dataset_change": {"who": "ann", "why": "fix"}}
    if priced:
        metadata["prices"] = {
            "table": {"demo": {"input": 0.3, "output": 1.2}},
            "source": "prices.yaml",
            "hash": "abc",
        }
    if split == "heldout":
        metadata["heldout_runs"] = 3
    info = RunInfo(
        id=run_id,
        started_at=datetime(2026, 11, trials, 9, 30, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted", "model": "demo"},
        graders=[{"name": "structured", "version": "1"}],
        trials=trials,
        assay_version="0.1.0",
        metadata=metadata,
    )
    store.create_run(info, dataset)
    batch: list[Record] = []
    judged: list[Judgment] = []
    for case in cases:
        for trial in range(1, trials + 1):
            if rng.random() < 0.1:
                continue
            outcome = _outcome(rng, case)
            tokens = rng.random()
            batch.append(
                Record(
                    case_id=case.id,
                    trial=trial,
                    outcome=outcome,
                    latency_ms=rng.choice((None, 12.5, 340.25, 99.0, rng.uniform(1, 900))),
                    usage=Usage(
                        input_tokens=rng.randrange(10, 90),
                        output_tokens=None if tokens < 0.3 else rng.randrange(1, 40),
                    )
                    if tokens < 0.8
                    else None,
                )
            )
            if not isinstance(outcome, Error):
                good = isinstance(outcome, Answer) and outcome.fact == case.expected_fact
                status = "ungraded" if rng.random() < 0.1 else "passed" if good else "failed"
                entry = {"name": "structured", "version": "1"}
                judged.append(_judgment(case, trial, status, entry))
    store.add_results(run_id, batch, judged)
    store.finish_run(run_id, "completed")


def test_a_figures_only_report_is_counted_and_equals_the_graded_one(store_url: str) -> None:
    from assay.runs import report_for_run
    from assay.runs._figures import counted_report

    store = open_store(store_url)
    try:
        _fill_plain(store, "plain-1", 1, "dev", True)
        _fill_plain(store, "plain-3", 3, "heldout", False)
        _fill(store, "rich", 4, _cases(30, False), 2)  # synthetic cases, both splits
        _fill(store, "rich-1", 5, _cases(30, False), 1)
        for run_id in ("plain-1", "plain-3", "rich", "rich-1"):
            info = store.get_run(run_id)
            records = store.records(run_id)
            judged = store.graders_judgments(run_id, "structured", "1")
            for spec in (None, "majority", "pass^k"):
                policy = TrialPolicy.parse(spec) if spec is not None else None
                counted = counted_report(store, info, policy=policy)
                assert counted is not None, run_id
                fast = report_for_run(store, run_id, rows=False, policy=policy)
                graded = report_for_run(
                    store, run_id, rows=False, policy=policy, results=(records, judged)
                )
                assert fast.model_dump() == graded.model_dump(), (run_id, spec)
        for run_id in ("plain-1", "plain-3", "rich", "rich-1"):
            indexed = report_for_run(store, run_id, rows=False)
            _drop_index(store, run_id)
            assert report_for_run(store, run_id, rows=False) == indexed, run_id
        plain = report_for_run(store, "plain-1", rows=False)
        assert plain.usage is not None and plain.usage.cost_usd is not None
        assert plain.usage.latency is not None and plain.dataset.source_revisions
        assert report_for_run(store, "plain-3", rows=False).heldout is not None
        for run_id in ("rich", "rich-1"):
            rich = report_for_run(store, run_id, rows=False)
            assert rich.synthetic is not None and rich.synthetic.case_ids
            assert rich.splits is not None and all(b.case_ids for b in rich.splits)
    finally:
        store.close()


def test_a_database_that_cannot_count_gives_the_graded_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.runs import _summary

    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        _fill(store, "one", 1, _cases(20, False), 1)
        # as on a SQLite built without its JSON functions
        monkeypatch.setitem(_summary._KIND, "sqlite", "no_such_function(rec.outcome)")
        for name in ("PACKED", "RECORDS"):
            query = getattr(_summary, name).replace("json_extract", "no_such_function")
            monkeypatch.setattr(_summary, name, query)
        assert counted_summary(store, store.get_run("one")) is None
        assert stored_summary(store, "one") == _graded(store, "one", None, IntervalSetting())
    finally:
        store.close()


def test_case_groups_and_ids_read_off_the_snapshot_equal_the_parsed_ones() -> None:
    from assay.cases import canonical_json
    from assay.runs._summary import _parsed_cases, _scanned_groups, _scanned_ids

    def snapshot(cases: list[Case]) -> str:
        return canonical_json([c.model_dump(mode="json") for c in cases])

    odd = Case(id='Q"1é', slice='odd "slice"', question="q", expected_behavior="abstain")
    plain = [*_cases(40, False), odd]
    text = snapshot(plain)
    ids, groups, revisions = _parsed_cases(text)
    scanned = _scanned_groups(text)
    assert scanned is not None
    distinct, codes, found = scanned
    assert [distinct[c] for c in codes] == groups and sorted(found) == sorted(revisions)
    assert _scanned_ids(text, len(codes)) == ids
    # a case's metadata may hold any keys: the groups are then parsed
    assert _scanned_groups(snapshot(_cases(40, True))) is None
    # sources naming the keys around an id: the ids are then parsed
    fake = Case(
        id="S",
        slice="s",
        question="q",
        expected_behavior="abstain",
        sources={"group": "g", "id": "x", "messages": "m"},
    )
    faked = [*plain, fake]
    assert _scanned_groups(snapshot(faked)) is not None
    assert _scanned_ids(snapshot(faked), len(faked)) is None


def test_the_case_index_gives_what_the_snapshot_gives(store_url: str) -> None:
    from sqlalchemy import select

    from assay.runs._summary import _parsed_cases
    from assay.store._case_index import read_case_ids, read_case_index
    from assay.store._schema import runs

    odd = Case(id='Q"1é\\', slice='odd "slice" ü', question="q", expected_behavior="abstain")
    cases = [*_cases(40, True), odd, *_plain_cases(12, "heldout")]
    store = open_store(store_url)
    try:
        _fill(store, "one", 1, cases, 1)
        with store.engine.connect() as conn:
            index = read_case_index(conn, "one")
            assert index is not None
            ids = read_case_ids(conn, "one", len(index.codes))
            snapshot = conn.execute(select(runs.c.cases).where(runs.c.id == "one")).scalar_one()
        parsed_ids, groups, revisions = _parsed_cases(snapshot)
        assert ids == parsed_ids
        assert [index.groups[c] for c in index.codes] == groups
        assert index.groups == list(dict.fromkeys(groups))
        assert index.revisions == sorted(revisions) == ["rev-0", "rev-1"]
        store.delete_run("one")
        with store.engine.connect() as conn:
            assert read_case_index(conn, "one") is None
    finally:
        store.close()


@pytest.mark.parametrize("placed", [True, False])
@pytest.mark.parametrize("trials", [1, 3])
def test_sqlite_s_packed_count_equals_its_group_by(
    tmp_path: Path, trials: int, placed: bool
) -> None:
    """The ways SQLite counts (records and judgments packed apart, or joined when a
    judgment has no position — stored before version 5 —, counted by numpy; ``GROUP BY``
    for runs too large for one text) give the same rows, for every kind of outcome (one
    without a kind too; stored beside it or not), stored status (unknown ones too),
    labels and cache notes."""
    from sqlalchemy import insert

    from assay.runs import _summary
    from assay.store._schema import judgments, records

    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    rng = random.Random(trials)
    cases = _cases(300, False)
    try:
        _fill(store, "run", 1, cases, trials)
        with store.engine.begin() as conn:
            conn.execute(judgments.delete())
            conn.execute(records.delete())
            rows, verdicts = [], []
            for position, case in enumerate(cases):
                for trial in range(1, trials + 1):
                    kind = rng.choice(["answer", "abstain", "error", None, 7])
                    outcome = "{}" if kind is None else f'{{"kind":{json.dumps(kind)}}}'
                    extra = rng.choice([None, '{"cache":{"hit":true}}', '{"x":1}'])
                    rows.append(
                        {
                            "run_id": "run",
                            "case_id": case.id,
                            "trial": trial,
                            "position": position,
                            "outcome": outcome,
                            "attempts": 1,
                            "extra": extra,
                            # written beside the outcome since version 5
                            "kind": kind if placed and isinstance(kind, str) else None,
                        }
                    )
                    status = rng.choice(
                        [None, "passed", "failed", "ungraded", "missing", "error", "odd", "?"]
                    )
                    if status is not None:
                        verdicts.append(
                            {
                                "run_id": "run",
                                "case_id": case.id,
                                "trial": trial,
                                "grader": "structured",
                                "grader_version": rng.choice(["1", "1", "1", "0"]),
                                "status": status,
                                "reason": "r",
                                "labels": rng.choice([None, "[]", '["tone"]']),
                                "position": position if placed else None,
                            }
                        )
            conn.execute(insert(records), rows)
            conn.execute(insert(judgments), verdicts)
        info = store.get_run("run")
        for absent in ("ungraded", "?"):
            params = {
                "run": "run",
                "trials": trials,
                "grader": "structured",
                "version": "1",
                "absent": absent,
                "cases": len(cases),
            }
            index = [c.slice for c in cases]
            distinct = list(dict.fromkeys(index))
            codes = [distinct.index(s) for s in index]
            with store.engine.connect() as conn:
                found = []
                for most in (_summary.MOST, -1):
                    with pytest.MonkeyPatch.context() as patch:
                        patch.setattr(_summary, "MOST", most)
                        if placed and absent == "ungraded":
                            # read apart: the joined query is run only to confirm that
                            # a record has no judgment
                            patch.setattr(_summary, "PACKED", "SELECT no_such_column")
                        found.append(
                            _summary._counted_rows(
                                conn,
                                "sqlite",
                                dict(params),
                                codes,
                                len(distinct),
                                trials > 1,
                                "ungraded" if absent == "ungraded" else None,
                            )
                        )
            packed, grouped = found
            assert grouped is not None and len(grouped) > 3
            if absent == "?":  # some answers have no judgment: they must be graded
                assert packed is None
                assert any(row[7] for row in grouped)
            else:
                assert packed == [tuple(int(x) for x in row) for row in grouped]
        assert info.trials == trials
    finally:
        store.close()


def test_a_result_stored_while_a_run_is_counted_is_not_half_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite reads the records, then the judgments: a record and its judgment stored in
    between are both left out (the judgment of a record not read is not looked at)."""
    from sqlalchemy import text

    from assay.runs import _summary

    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        cases = _cases(40, False)
        _fill(store, "live", 1, cases, 1)
        before = counted_summary(store, store.get_run("live"))
        assert before is not None and before.missing
        recorded = {r.case_id for r in store.records("live")}
        late = next(c for c in cases if c.id not in recorded)
        stored: list[str] = []

        def storing_between(sql: str) -> Any:
            if sql == _summary.JUDGMENTS and not stored:
                stored.append(late.id)
                judged = _judgment(late, 1, "passed", {"name": "structured", "version": "1"})
                store.add_results("live", [Record(case_id=late.id, outcome=Abstain())], [judged])
            return text(sql)

        with monkeypatch.context() as patch:
            patch.setattr(_summary, "text", storing_between)
            during = counted_summary(store, store.get_run("live"))
        assert stored == [late.id]
        assert during == before
        after = counted_summary(store, store.get_run("live"))
        assert after is not None and after.missing == before.missing - 1
        assert after.success == before.success + 1
    finally:
        store.close()
