"""Store failures are one clear ``StoreError``, never a traceback, and never lose what
was stored: a damaged file, a full database during a run (the run stops ``interrupted``
and resumes to every case-trial exactly once), a read-only file."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from tests.run_stores import fill_store

from assay.errors import StoreError
from assay.runner import resume_run, run_suite
from assay.store import RunStore, open_store

CASES = 40


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    path = tmp_path / "runs.db"
    fill_store(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:  # everything in the main file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def _read_everything(store: RunStore) -> None:
    for info in store.list_runs():
        store.records(info.id)
        store.judgments(info.id)
        store.spans(info.id)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "zeroed-middle"])
def test_a_damaged_store_is_one_clear_error_and_is_left_as_it_was(
    filled: Path, damage: str
) -> None:
    data = filled.read_bytes()
    if damage == "truncated":
        filled.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        filled.write_bytes(b"not a database at all\n" * 200)
    else:
        middle = len(data) // 2
        filled.write_bytes(data[:4096] + b"\xff" * (middle - 4096) + data[middle:])
    before = _digest(filled)
    with pytest.raises(StoreError, match=r"damaged or is not an assay store") as caught:
        store = open_store(f"sqlite:///{filled}")
        try:
            _read_everything(store)
        finally:
            store.close()
    assert caught.value.kind == "damaged"
    assert _digest(filled) == before


def _suite(tmp_path: Path) -> Path:
    cases = [
        {"id": f"C{i:02d}", "slice": "s", "question": "q" * 200, "expected_behavior": "answer",
         "expected_fact": "f"}
        for i in range(CASES)
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        "target:\n  type: scripted\n  default: {kind: answer, fact: f, text: "
        + json.dumps("x" * 1500)
        + "}\nconcurrency: 1\ntrials: 2\ntrace: false\n"
    )
    return suite


def test_a_full_store_stops_the_run_as_interrupted_and_resume_finishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.runner import _options

    monkeypatch.setattr(_options.RunOptions, "__init__", _small_batches(_options.RunOptions))
    suite = _suite(tmp_path)
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = open_store(url)

    with store.engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()

    def limit(connection: Any, _record: Any) -> None:  # the database cannot grow past this
        connection.execute(f"PRAGMA max_page_count={pages + 30}")

    store.engine.dispose()
    event.listen(store.engine, "connect", limit)
    try:
        with pytest.raises(StoreError, match=r"database or disk is full") as caught:
            run_suite(suite, store)
    finally:
        store.close()
    message = str(caught.value)
    assert caught.value.kind == "full"
    assert "assay run --resume" in message
    # At the size limit even the status update may find no page (a real full disk,
    # tested end to end, keeps room in the WAL): the run is then left `running`.
    marked = "is marked interrupted" in message

    store = open_store(url)  # room again (no size limit)
    try:
        (info,) = store.list_runs()
        stored = store.recorded_keys(info.id)
        assert info.status == ("interrupted" if marked else "running")
        assert 0 < len(stored) < CASES * 2
        result = resume_run(store, info.id, suite=suite)
        keys = [r.key for r in store.records(info.id)]
    finally:
        store.close()
    assert result.status == "completed"
    assert len(keys) == len(set(keys)) == CASES * 2


def _small_batches(cls: Any) -> Any:
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("batch_size", 4)
        original(self, *args, **kwargs)

    return init


def test_a_read_only_store_file_can_be_read_and_refuses_a_run(filled: Path, tmp_path: Path) -> None:
    filled.chmod(0o444)
    if _writable(filled):
        pytest.skip("this user can write a read-only file (root): see the e2e immutable test")
    store = open_store(f"sqlite:///{filled}")
    try:
        assert "(read-only)" in store.url
        _read_everything(store)
        with pytest.raises(StoreError, match="read-only") as caught:
            store.finish_run("base", "failed")
        assert caught.value.kind == "read_only"
    finally:
        store.close()


def _writable(path: Path) -> bool:
    try:
        with path.open("r+b"):
            return True
    except OSError:
        return False


def test_a_store_copied_elsewhere_still_reads(filled: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(filled, copy)
    store = open_store(f"sqlite:///{copy}")
    try:
        _read_everything(store)
    finally:
        store.close()


def test_a_row_changed_outside_assay_is_a_damaged_store(filled: Path) -> None:
    with sqlite3.connect(filled) as conn:
        conn.execute("UPDATE records SET outcome = '{\"kind\": \"answ' WHERE case_id = 'E1'")
    store = open_store(f"sqlite:///{filled}")
    try:
        with pytest.raises(StoreError) as caught:
            store.records("base")
        assert caught.value.kind == "damaged"
        message = str(caught.value)
        assert " holds a record assay cannot read: run base, case \"E1\", trial 1, column " \
            "outcome: " in message  # fmt: skip
        assert "Invalid JSON" in message and "not an assay store" not in message
        assert store.get_run("base").status == "completed"  # the rest still reads
    finally:
        store.close()
