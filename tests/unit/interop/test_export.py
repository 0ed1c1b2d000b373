"""Exports of a stored run: rows that add up, and round trips back through the importer."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.interop_logs import inspect_log, inspect_sample, write_eval_log

from assay.compare import RunSide, compare_runs
from assay.interop import (
    COLUMNS,
    ScoreRule,
    import_inspect,
    read_stored,
    store_import,
    to_csv,
    to_inspect,
    to_jsonl,
    to_parquet,
)
from assay.store import RunStore, open_store

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    opened = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    yield opened  # type: ignore[misc]
    opened.close()


def _stored(store: RunStore, tmp_path: Path) -> str:
    """A run of 6 listed samples × 2 epochs: passes, fails, errors, unscored, missing."""
    samples = [
        inspect_sample(1, 1),
        inspect_sample(1, 2),
        inspect_sample(2, 1, value="I"),
        inspect_sample(2, 2, value="C"),
        inspect_sample(3, 1, error="boom"),
        inspect_sample(3, 2, error="boom"),
        inspect_sample(4, 1, value=None),
        inspect_sample(4, 2, value=0.25),
        inspect_sample("case/5", 1),  # epoch 2 never ran; sample 6 never ran at all
    ]
    log = inspect_log(samples, sample_ids=[1, 2, 3, 4, "case/5", 6], epochs=2, accuracy=0.5)
    path = write_eval_log(tmp_path / "source.eval", log)
    report = store_import(store, import_inspect(path, rule=ScoreRule()), now=NOW)
    assert report.run_id is not None
    return report.run_id


EXPECTED = {"passed": 4, "failed": 2, "error": 2, "ungraded": 1, "missing": 3}


def test_jsonl_and_csv_rows_add_up_to_the_report(store: RunStore, tmp_path: Path) -> None:
    run = read_stored(store, _stored(store, tmp_path))
    lines = [json.loads(line) for line in to_jsonl(run).splitlines()]
    assert Counter(r["status"] for r in lines) == EXPECTED
    assert all(list(r) == list(COLUMNS) for r in lines)
    missing = [r for r in lines if r["status"] == "missing"]
    assert all(r["outcome"] is None for r in missing)
    errored = next(r for r in lines if r["status"] == "error")
    assert errored["error_message"] == "boom"
    assert next(r for r in lines if r["status"] == "passed")["input_tokens"] == 10
    table = list(csv.DictReader(io.StringIO(to_csv(run))))
    assert [(r["case_id"], int(r["trial"]), r["status"]) for r in table] == [
        (r["case_id"], r["trial"], r["status"]) for r in lines
    ]


def test_inspect_export_round_trips_statuses_cases_and_figures(
    store: RunStore, tmp_path: Path
) -> None:
    original = read_stored(store, _stored(store, tmp_path))
    path = tmp_path / "exported.eval"
    path.write_bytes(to_inspect(original))
    again_report = store_import(store, import_inspect(path, rule=ScoreRule()), now=NOW)
    assert again_report.run_id is not None
    again = read_stored(store, again_report.run_id)
    assert again.info.dataset_version == original.info.dataset_version
    assert again.report.statuses == original.report.statuses
    assert again.report.task_success == original.report.task_success
    assert [(c.id, c.trial, c.status) for c in again.report.cases] == [
        (c.id, c.trial, c.status) for c in original.report.cases
    ]
    assert again.records == tuple(
        r.model_copy(update={"extra": r2.extra})
        for r, r2 in zip(original.records, again.records, strict=True)
    )
    comparison = compare_runs(
        RunSide.from_report(original.report, ref="a"), RunSide.from_report(again.report, ref="b")
    )
    assert comparison.excluded == []
    assert not comparison.newly_fixed and not comparison.newly_broken


def test_inspect_opens_the_exported_log(store: RunStore, tmp_path: Path) -> None:
    log_module = pytest.importorskip(
        "inspect_ai.log", reason="inspect_ai is not installed (pip install 'assay[interop]')"
    )
    run = read_stored(store, _stored(store, tmp_path))
    path = tmp_path / "exported.eval"
    path.write_bytes(to_inspect(run))
    log = log_module.read_eval_log(str(path))
    assert log.eval.dataset.sample_ids == ["1", "2", "3", "4", "case/5", "6"]
    assert len(log.samples) == 12 - EXPECTED["missing"]
    assert sum(1 for s in log.samples if s.error is not None) == EXPECTED["error"]
    values = Counter(s.scores["assay"].value for s in log.samples if s.scores)
    assert values == {"C": EXPECTED["passed"], "I": EXPECTED["failed"]}
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(4 / 6)


def test_parquet_holds_the_same_rows(store: RunStore, tmp_path: Path) -> None:
    parquet = pytest.importorskip(
        "pyarrow.parquet", reason="pyarrow is not installed (pip install 'assay[parquet]')"
    )
    run = read_stored(store, _stored(store, tmp_path))
    path = tmp_path / "run.parquet"
    path.write_bytes(to_parquet(run))
    table = parquet.read_table(str(path)).to_pylist()
    assert table == [json.loads(line) for line in to_jsonl(run).splitlines()]
