"""A large stored run's rows rendered by two processes (``StoredRows.rendered``): the same
chunks, in the same order, as rendered by this process alone, on SQLite and PostgreSQL;
a fork that fails has its rows made again here, and a damaged row is reported as it is
without the fork."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.unit.runs.test_stored_summary import _cases, _fill

from assay._fast import forked as _forked
from assay._written import WrittenText
from assay.cli._output import emit
from assay.errors import StoreError
from assay.render import json as json_render
from assay.render import junit, packed, render, render_chunks, render_written
from assay.render.json import _rows_text
from assay.report._rows import chunked, close_rows
from assay.runs import _rendered
from assay.runs._run_settings import run_grader
from assay.runs._streamed import StoredRows, streamed_report
from assay.store import RunStore, open_store


def _can_fork() -> bool:
    """Whether ``Forked.start`` forks here (a second core; no other thread running, which
    a test elsewhere in the session may have left)."""
    import threading

    return _forked.cores() >= 2 and threading.active_count() == 1


SIZE = 7
"""Chunk size: the fork's first row falls inside a case of three trials."""


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every run renders in two processes; each fork started is noted (True)."""
    monkeypatch.setattr(_rendered, "FORKED_ABOVE", 0)
    starts: list[bool] = []
    real = _forked.Forked.start

    def start(make: Any) -> Any:
        made = real(make)
        starts.append(made is not None)
        return made

    monkeypatch.setattr(_forked.Forked, "start", start)
    return starts


def _rows(store: RunStore, run_id: str) -> StoredRows:
    info = store.get_run(run_id)
    return StoredRows(store, info, run_grader(info), len(store.load_dataset(run_id).cases) * 3)


def _serial(rows: StoredRows, size: int, render: Any) -> list[Any]:
    return [render(chunk) for chunk in chunked(rows.values(), size)]


def test_rows_rendered_in_two_processes_equal_those_rendered_in_one(
    store_url: str, started: list[bool]
) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, True), 3)
        rows = _rows(store, "three")
        for made in (list, _rows_text):
            assert list(rows.rendered(SIZE, made)) == _serial(rows, SIZE, made)
        assert started == [_can_fork()] * 2
        # a run whose store kept no case hashes (stored before version 6): the same rows
        with store.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE case_index SET hashes = NULL")
        assert list(rows.rendered(SIZE, list)) == _serial(rows, SIZE, list)
    finally:
        store.close()


def test_each_format_reads_its_rows_from_two_processes_to_the_same_text(
    store_url: str, started: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # parts of a few rows, so that the page's packed rows come from both processes
    monkeypatch.setattr(packed, "SEARCH_PART_ROWS", 14)
    monkeypatch.setattr(packed, "PACKED_PART_ROWS", 7)
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, True), 3)
        streamed = streamed_report(store, "three")
        assert streamed is not None
        listed = streamed.model_copy(update={"cases": list(streamed.cases)})
        for fmt in ("json", "junit"):
            assert render(streamed, fmt) == render(listed, fmt), fmt
        assert list(packed.packed_blocks(streamed)) == list(packed.packed_blocks(listed))
        assert started == [_can_fork()] * 3
    finally:
        store.close()


@pytest.mark.parametrize("fmt", ["json", "junit", "html"])
def test_rows_started_ahead_of_the_figures_render_to_the_same_text(
    store_url: str, started: list[bool], monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.setattr(packed, "SEARCH_PART_ROWS", 14)
    monkeypatch.setattr(packed, "PACKED_PART_ROWS", 7)
    monkeypatch.setattr(json_render, "_ROWS_PER_CHUNK", 7)
    monkeypatch.setattr(junit, "_ROWS_PER_PART", 7)
    monkeypatch.setattr(_rendered, "_ALIGN", 14)  # the fork starts at row 56 of 120
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, True), 3)
        ahead = streamed_report(store, "three", whole=True)
        assert ahead is not None
        assert started == [_can_fork()]
        listed = ahead.model_copy(update={"cases": list(ahead.cases)})
        if fmt == "html":
            assert list(packed.packed_blocks(ahead)) == list(packed.packed_blocks(listed))
        else:
            assert render(ahead, fmt) == render(listed, fmt)
        assert started == [_can_fork()]  # the one started ahead, asked
        # a rendering the fork cannot be asked for (it does not pickle): a fork of its own
        again = streamed_report(store, "three", whole=True)
        assert again is not None
        here = 0

        def local(chunk: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            nonlocal here
            return chunk

        rows = again.cases
        assert isinstance(rows, StoredRows)
        assert list(rows.rendered(SIZE, local)) == _serial(rows, SIZE, list)
        assert started == [_can_fork()] * 3
        # started and never read: stopped
        unread = streamed_report(store, "three", whole=True)
        assert unread is not None
        close_rows(unread)
        assert len(started) == 4
    finally:
        store.close()


def _emitted(pieces: Any, path: Path) -> bytes:
    emit(pieces, path)
    return path.read_bytes()


@pytest.mark.parametrize("ahead", [True, False])
def test_json_rows_a_fork_wrote_are_copied_into_the_report_as_one_process_writes_it(
    store_url: str,
    started: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    ahead: bool,
) -> None:
    monkeypatch.setattr(json_render, "_ROWS_PER_CHUNK", 7)
    monkeypatch.setattr(_rendered, "_ALIGN", 14)
    odd = [
        c.model_copy(update={"question": f"{c.question} \x1b[2J\x85\u202e\x7f é"})
        for c in _cases(40, True)
    ]  # control characters a report file shows escaped, and a letter beyond ASCII
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, odd, 3)
        report = streamed_report(store, "three", whole=ahead)
        assert report is not None
        listed = report.model_copy(update={"cases": list(report.cases)})
        kinds: list[type] = []

        def noted(pieces: Iterator[Any]) -> Iterator[Any]:
            for piece in pieces:  # copied by emit while the fork's file is open
                kinds.append(type(piece))
                yield piece

        one = _emitted(render_chunks(listed, "json"), tmp_path / "one.json")
        assert _emitted(noted(render_written(report, "json")), tmp_path / "two.json") == one
        # every row the fork made, as one file
        assert kinds.count(WrittenText) == (1 if _can_fork() else 0)
        assert b"\\u001b[2J\\u0085\\u202e\\u007f \xc3\xa9" in one
        close_rows(report)
    finally:
        store.close()


def test_json_rows_a_fork_wrote_are_printed_as_one_process_prints_them(
    store_url: str, started: list[bool], capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, True), 3)
        report = streamed_report(store, "three", whole=True)
        assert report is not None
        expected = render(report.model_copy(update={"cases": list(report.cases)}), "json")
        emit(render_written(report, "json"), None)
        assert capfdbinary.readouterr().out.decode() == expected
        assert started == [_can_fork()]
        close_rows(report)
    finally:
        store.close()


def test_json_rows_of_a_fork_that_fails_are_made_here(
    store_url: str, started: list[bool], tmp_path: Path
) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, False), 3)
        rows = _rows(store, "three")
        here = os.getpid()

        def fails_in_the_fork(chunk: list[tuple[Any, ...]]) -> str:
            if os.getpid() != here:
                raise RuntimeError("the fork fails")
            return _rows_text(chunk)

        pieces = list(rows.rendered_texts(SIZE, fails_in_the_fork, ",\n"))
        assert not any(isinstance(p, WrittenText) for p in pieces)
        assert ",\n".join(pieces) == ",\n".join(_serial(rows, SIZE, _rows_text))
        assert started == [_can_fork()]
    finally:
        store.close()


def test_a_fork_that_fails_has_its_rows_made_here(store_url: str, started: list[bool]) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, False), 3)
        rows = _rows(store, "three")
        here = os.getpid()

        def fails_in_the_fork(chunk: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            if os.getpid() != here:
                raise RuntimeError("the fork fails")
            return chunk

        assert list(rows.rendered(SIZE, fails_in_the_fork)) == _serial(rows, SIZE, list)
        assert started == [_can_fork()]
    finally:
        store.close()


def test_a_damaged_row_the_fork_would_read_is_reported_as_without_it(
    store_url: str, started: list[bool]
) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, False), 3)
        with store.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE records SET outcome = '{\"kind\": 7}' WHERE position = 38")
        rows = _rows(store, "three")
        with pytest.raises(StoreError) as alone:
            _serial(rows, SIZE, list)
        with pytest.raises(StoreError) as forked:
            list(rows.rendered(SIZE, list))
        assert str(forked.value) == str(alone.value)
        assert 'case "C038", trial 1, column outcome' in str(forked.value)
    finally:
        store.close()


def _slowly(_: _forked.Request) -> Iterator[int]:
    import time

    while True:
        time.sleep(0.05)
        yield 1


def test_a_fork_never_outlives_its_caller() -> None:
    forked = _forked.Forked.start(_slowly)
    if forked is None:
        pytest.skip("no second core to fork for")
    pid = forked._child.pid
    assert pid is not None
    forked.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no such child any more


def test_a_forks_items_come_back_in_order_and_a_failure_gives_none() -> None:
    with _forked.Forked.start(lambda _: (f"item {i}" for i in range(5000))) as done:
        if done is None:
            pytest.skip("no second core to fork for")
        items = done.items()
        assert items is not None and list(items) == [f"item {i}" for i in range(5000)]

    def fails(_: _forked.Request) -> Iterator[int]:
        yield 1
        raise ValueError("no more")

    with _forked.Forked.start(fails) as failed:
        assert failed is not None and failed.items() is None


def test_no_fork_is_started_beside_other_threads() -> None:
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert _forked.Forked.start(_slowly) is None
    finally:
        stop.set()
        other.join()


@pytest.mark.parametrize("column", ["ids", "hashes"])
def test_a_damaged_case_index_the_fork_reads_is_reported_as_without_it(
    store_url: str, started: list[bool], column: str
) -> None:
    """The fork started ahead reads the case ids and hashes itself: when they are
    damaged, the report fails with the message it gives without a fork."""
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(40, False), 3)
        with store.engine.begin() as conn:
            conn.exec_driver_sql(f"UPDATE case_index SET {column} = '[\"C000\"]'")

        def failure(whole: bool) -> str:
            with pytest.raises(StoreError) as failed:
                report = streamed_report(store, "three", whole=whole)
                assert report is not None
                try:
                    render(report, "json")
                finally:
                    close_rows(report)
            return str(failed.value)

        alone = failure(False)
        assert failure(True) == alone
        assert f"column {column}" in alone
        assert started == [_can_fork()]
    finally:
        store.close()
