"""Loopback HTTP servers (aiohttp.web on 127.0.0.1, a free port) for the target tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest
from aiohttp import web

from assay.cases import Case

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Serve = Callable[[Handler], AbstractAsyncContextManager[str]]


@asynccontextmanager
async def _serve(handler: Handler) -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.fixture
def serve() -> Serve:
    """``async with serve(handler) as base_url``: a server that stops itself."""
    return _serve


@pytest.fixture
def case() -> Case:
    return Case(
        id="E1",
        slice="standard",
        question="How many days do I have to return an item?",
        expected_behavior="answer",
        expected_fact="return_window_30_days",
        metadata={"lang": "en"},
    )
