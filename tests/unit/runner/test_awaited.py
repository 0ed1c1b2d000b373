"""``run_suite`` inside a running event loop (a notebook's): refused with the way to await
it, before anything runs; ``run_suite_async`` awaited there runs the suite as usual."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

import assay
from assay.runner import resume_run
from assay.store import RunStore, open_store

SUITE = Path(__file__).parents[3] / "examples" / "demo" / "v1.yaml"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


def test_a_blocking_run_inside_a_running_loop_says_to_await(store: RunStore) -> None:
    async def inside() -> None:
        assay.run_suite(SUITE, store)

    with pytest.raises(RuntimeError, match=r"await assay\.run_suite_async\(\.\.\.\)") as err:
        asyncio.run(inside())
    assert "already running" in str(err.value)
    assert store.list_runs() == []  # refused before anything was stored


def test_resume_inside_a_running_loop_says_to_await(store: RunStore) -> None:
    async def inside() -> None:
        resume_run(store, "r-1")

    with pytest.raises(RuntimeError, match=r"await assay\.resume_run_async"):
        asyncio.run(inside())


def test_awaited_inside_a_running_loop_the_run_completes(store: RunStore) -> None:
    ticks = 0

    async def ticking() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async def inside() -> assay.runner.RunResult:  # type: ignore[name-defined]
        clock = asyncio.create_task(ticking())
        try:
            return await assay.run_suite_async(SUITE, store)
        finally:
            clock.cancel()

    result = asyncio.run(inside())
    assert result.status == "completed"
    assert ticks > 0  # the caller's loop kept running while the suite ran
    blocking = assay.run_suite(SUITE, store)
    assert result.report.task_success == blocking.report.task_success
    assert [i.id for i in store.list_runs()] == [blocking.run_id, result.run_id]
