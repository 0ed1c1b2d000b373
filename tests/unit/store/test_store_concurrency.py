"""Concurrent processes and one store: many processes opening a new store at once all
succeed and every migration is applied once; a run can be claimed by one process at a
time, and a claim ends with the process that held it, however it ended."""

from __future__ import annotations

import multiprocessing
import os
import signal
from multiprocessing.synchronize import Barrier

import pytest
from sqlalchemy import text

from assay.errors import AssayInputError
from assay.store import SCHEMA_VERSION, open_store

PROCESSES = 40


def _context() -> multiprocessing.context.BaseContext:
    # Children forked from a clean server process: a fork of the test process itself
    # would copy the locks of threads that earlier tests left running.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["assay.store", "sqlalchemy", "psycopg"])
    return ctx


def _open(url: str, barrier: Barrier, results: multiprocessing.Queue[str]) -> None:
    barrier.wait(60)
    try:
        open_store(url).close()
        results.put("ok")
    except BaseException as err:  # reported to the test, which shows it
        results.put(f"{type(err).__name__}: {err}")


def test_many_processes_opening_a_new_store_at_once_all_succeed(store_url: str) -> None:
    count = PROCESSES if store_url.startswith("sqlite") else 32
    ctx = _context()
    barrier = ctx.Barrier(count)
    results: multiprocessing.Queue[str] = ctx.Queue()
    procs = [ctx.Process(target=_open, args=(store_url, barrier, results)) for _ in range(count)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(60)
    assert outcomes == ["ok"] * count, [o for o in outcomes if o != "ok"]
    store = open_store(store_url)
    try:
        with store.engine.connect() as conn:
            versions = conn.execute(text("SELECT version FROM schema_version")).scalars().all()
    finally:
        store.close()
    assert sorted(versions) == list(range(1, SCHEMA_VERSION + 1))  # each step applied once


def test_a_run_is_claimed_by_one_holder_at_a_time(store_url: str) -> None:
    first, second = open_store(store_url), open_store(store_url)
    try:
        claim = first.claim("20260101-000000-aaaaaa")
        with pytest.raises(AssayInputError, match="being run by another process"):
            second.claim("20260101-000000-aaaaaa")
        other = second.claim("20260101-000000-bbbbbb")  # another run is free
        claim.release()
        claim.release()  # releasing twice is harmless
        second.claim("20260101-000000-aaaaaa").release()
        other.release()
    finally:
        first.close()
        second.close()


def _hold(url: str, ready: multiprocessing.Queue[str]) -> None:
    store = open_store(url)
    store.claim("20260101-000000-cccccc")
    ready.put("held")
    signal.pause()


def test_a_claim_ends_with_a_killed_holder(store_url: str) -> None:
    ctx = _context()
    ready: multiprocessing.Queue[str] = ctx.Queue()
    holder = ctx.Process(target=_hold, args=(store_url, ready))
    holder.start()
    try:
        assert ready.get(timeout=60) == "held"
        store = open_store(store_url)
        try:
            with pytest.raises(AssayInputError):
                store.claim("20260101-000000-cccccc")
            assert holder.pid is not None
            os.kill(holder.pid, signal.SIGKILL)
            holder.join(30)
            if store_url.startswith("postgresql"):  # the server notices the lost session
                with store.engine.connect() as conn:
                    conn.execute(text("SELECT pg_sleep(0.5)"))
            store.claim("20260101-000000-cccccc").release()
        finally:
            store.close()
    finally:
        if holder.is_alive():
            holder.kill()
