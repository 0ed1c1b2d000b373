"""``run_suite`` and ``resume_run`` for code already inside an event loop (a Jupyter
notebook's cells run in one): awaited, the run goes on a worker thread with an event loop
of its own, exactly as the blocking call runs it, while the caller's loop stays free."""

from __future__ import annotations

import asyncio
from pathlib import Path

from assay.load import Suite
from assay.runner._run import Overrides, RunControl, RunResult, resume_run, run_suite
from assay.runner._select import Selection
from assay.store import RunStore


async def run_suite_async(
    suite: Suite | str | Path,
    store: RunStore,
    *,
    selection: Selection | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """``await run_suite_async(...)``: ``run_suite`` from inside a running event loop,
    with the same arguments and result.

    The run has its own event loop on a worker thread; Ctrl-C (a notebook's interrupt)
    stops the waiting, not the run, which goes on to its end and is stored as usual.
    """
    return await asyncio.to_thread(
        run_suite, suite, store, selection=selection, overrides=overrides, control=control
    )


async def resume_run_async(
    store: RunStore,
    run_id: str,
    *,
    suite: Suite | str | Path | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """``await resume_run_async(...)``: ``resume_run`` from inside a running event loop."""
    return await asyncio.to_thread(
        resume_run, store, run_id, suite=suite, overrides=overrides, control=control
    )


__all__ = ["resume_run_async", "run_suite_async"]
