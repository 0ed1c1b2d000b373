"""Upgrading from every earlier schema version, on SQLite and PostgreSQL: a store created
at version v and filled as that version's assay wrote it opens with the current assay at
the current version, every row intact, and the run still reports the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from tests.run_stores import fill_store

from assay.cases import canonical_json
from assay.load import load_dataset, load_results
from assay.runner import report_for_run
from assay.runs import stored_summary
from assay.store import SCHEMA_VERSION, current_version, migrate, open_store
from assay.store._store import _IN_ORDER, _JUDGED_RECORDS

POLICY = Path(__file__).resolve().parents[3] / "examples" / "policy"
EARLIER = range(1, SCHEMA_VERSION)


def _fill_at(url: str, version: int) -> None:
    """A store at schema ``version`` holding run ``old`` (the seed's six results, one
    judgment, one span), written with the columns that version had."""
    dataset = load_dataset(POLICY / "policy.jsonl")
    seed = list(load_results(POLICY / "results.jsonl").records)
    engine = create_engine(url)
    try:
        migrate(engine, upto=version)
        run = {
            "id": "old",
            "started_at": "2026-01-01T09:30:00+00:00",
            "ended_at": "2026-01-01T09:31:00+00:00",
            "status": "completed",
            "suite": "{}",
            "dataset_name": dataset.name,
            "dataset_version": dataset.version,
            "cases": canonical_json([c.model_dump(mode="json") for c in dataset.cases]),
            "target": '{"type":"scripted"}',
            "target_hash": "h",
            "graders": '[{"name":"structured","version":"1"}]',
            "trials": 1,
            "trial_policy": "per-trial",
            "assay_version": "0.1.0",
            "packages": "{}",
        }
        if version >= 2:
            run["metadata"] = '{"model":"m1"}'
        rows = [
            {
                "run_id": "old",
                "case_id": r.case_id,
                "trial": 1,
                "position": i,
                "outcome": r.outcome.model_dump_json(exclude_none=True),
                "attempts": 1,
                "latency_ms": 12.5,
                **({"trace_id": f"{i:032x}"} if version >= 2 else {}),
                **({"kind": r.outcome.kind} if version >= 5 else {}),
            }
            for i, r in enumerate(seed)
        ]
        with engine.begin() as conn:
            conn.execute(_insert("runs", run), run)
            conn.execute(_insert("records", rows[0]), rows)
            judgment = {
                "run_id": "old",
                "case_id": "E1",
                "trial": 1,
                "grader": "structured",
                "grader_version": "1",
                "status": "passed",
                "reason": "fact matches",
                "score": 1.0,
                "labels": "[]",
                **({"position": 0} if version >= 5 else {}),
            }
            conn.execute(_insert("judgments", judgment), judgment)
            # a judgment without a record (of a case not in the dataset)
            orphan = {**judgment, "case_id": "E9", "status": "failed"}
            if version >= 5:
                orphan["position"] = None
            conn.execute(_insert("judgments", orphan), orphan)
            span = {
                "run_id": "old",
                "trace_id": "t1",
                "span_id": "s1",
                "name": "assay.request",
                "start_ns": 1,
                "end_ns": 2,
                "status": "ok",
                "attributes": "{}",
                "case_id": "E1",
                "trial": 1,
            }
            conn.execute(_insert("spans", span), span)
        with engine.connect() as conn:
            assert current_version(conn) == version
    finally:
        engine.dispose()


def _insert(table: str, row: dict[str, object]) -> object:
    columns = ", ".join(row)
    values = ", ".join(f":{c}" for c in row)
    return text(f"INSERT INTO {table} ({columns}) VALUES ({values})")


@pytest.mark.parametrize("version", EARLIER)
def test_a_store_at_every_earlier_version_upgrades_with_its_data_intact(
    store_url: str, version: int
) -> None:
    _fill_at(store_url, version)
    store = open_store(store_url)
    try:
        with store.engine.connect() as conn:
            assert current_version(conn) == SCHEMA_VERSION
            versions = conn.execute(text("SELECT version FROM schema_version")).scalars().all()
        assert sorted(versions) == list(range(1, SCHEMA_VERSION + 1))
        info = store.get_run("old")
        assert info.status == "completed"
        assert info.metadata == ({"model": "m1"} if version >= 2 else {})
        seed = list(load_results(POLICY / "results.jsonl").records)
        records = store.records("old")
        assert [(r.case_id, r.outcome) for r in records] == [(r.case_id, r.outcome) for r in seed]
        assert all(r.latency_ms == 12.5 for r in records)
        traces = [r.trace_id for r in records]
        assert traces == ([f"{i:032x}" for i in range(6)] if version >= 2 else [None] * 6)
        assert [(j.case_id, j.status) for j in store.judgments("old")] == [
            ("E9", "failed"),
            ("E1", "passed"),
        ]
        # judgments take their record's position; one without a record has none
        with store.engine.connect() as conn:
            placed = conn.execute(text("SELECT case_id, position FROM judgments")).all()
        assert sorted(placed) == [("E1", 0), ("E9", None)]
        with store.engine.connect() as conn:
            kinds = conn.execute(text("SELECT kind FROM records")).scalars().all()
        # written by version 5 on; read off each outcome before
        assert kinds == ([r.outcome.kind for r in seed] if version >= 5 else [None] * 6)
        assert [s.span_id for s in store.spans("old", case_id="E1")] == ["s1"]
        assert [run for run, _ in store.case_records("E3")] == ["old"]
        report = report_for_run(store, "old")
        assert (report.task_success.numerator, report.task_success.denominator) == (2, 6)
        assert report.errors == 1
        # stored before the case index existed: counted from the cases' snapshot
        with store.engine.connect() as conn:
            assert not conn.execute(text("SELECT * FROM case_index")).all()
        summary = stored_summary(store, "old")
        assert (summary.task_success.numerator, summary.task_success.denominator) == (2, 6)
        assert summary.errors == 1 and summary.total == 6
        # counted beside the records once no judgment lacks a position
        with store.engine.begin() as conn:
            conn.execute(text("DELETE FROM judgments WHERE case_id = 'E9'"))
        assert stored_summary(store, "old") == summary
        names = {
            index["name"]
            for table in ("runs", "records", "judgments")
            for index in inspect(store.engine).get_indexes(table)
        }
        assert {"runs_by_start", "records_by_case", "judgments_by_case"} <= names
        assert "records_by_position" in names
    finally:
        store.close()


def test_one_case_across_runs_is_read_newest_run_first(store_url: str) -> None:
    store = open_store(fill_store(store_url))
    try:
        found = store.case_records("E2")
        assert [(run, r.trial) for run, r in found] == [("cand", 1), ("base", 1)]
        assert [r.case_id for _, r in found] == ["E2", "E2"]
        assert store.case_records("no-such-case") == []
    finally:
        store.close()


def test_reading_a_case_across_runs_uses_the_index(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        with store.engine.connect() as conn:
            plan = conn.execute(
                text("EXPLAIN QUERY PLAN SELECT run_id FROM records WHERE case_id = 'E1'")
            ).all()
            listing = conn.execute(
                text("EXPLAIN QUERY PLAN SELECT id FROM runs ORDER BY started_at DESC, id DESC")
            ).all()
        assert any("records_by_case" in str(row) for row in plan), plan
        assert any("runs_by_start" in str(row) for row in listing), listing
    finally:
        store.close()


def test_a_runs_records_are_read_in_dataset_order_without_sorting(tmp_path: Path) -> None:
    store = open_store(fill_store(f"sqlite:///{tmp_path / 'a.db'}"))
    try:
        sql = _JUDGED_RECORDS + _IN_ORDER
        params = {"run": "base", "grader": "g", "version": "1", "trials": 1, "cases": 6}
        with store.engine.connect() as conn:
            plan = conn.execute(text("EXPLAIN QUERY PLAN " + sql), {**params, "first": 3}).all()
        assert any("records_by_position" in str(row) for row in plan), plan
        assert not any("TEMP B-TREE" in str(row) for row in plan), plan
        batches = store.judged_records("base", "structured", "1", 1, 6, first=3)
        assert [row[0] for batch in batches for row in batch] == [3, 4, 5]
    finally:
        store.close()
