"""Loopback servers (aiohttp.web on 127.0.0.1, a free port) for tests of targets and of
the runner against them: a fixture for async tests, and a server in a thread of its own
for tests that run assay in a subprocess."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from typing import Any

import pytest
from aiohttp import web

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


@contextmanager
def threaded_server(routes: Mapping[str, Handler]) -> Iterator[str]:
    """A server answering POSTs to each path of ``routes`` with its handler, run in a
    thread until the block ends; yields its base URL (``http://127.0.0.1:PORT``)."""
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        app = web.Application()
        for path, handler in routes.items():
            app.router.add_post(path, handler)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        state["url"] = f"http://127.0.0.1:{runner.addresses[0][1]}"
        stop = asyncio.Event()
        state["stop"], state["loop"] = stop, asyncio.get_running_loop()
        ready.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the loopback server did not start within 30 s")
    try:
        yield str(state["url"])
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(30)
