"""Connection failures (refused, reset) are ``connection_error`` outcomes, retried like
timeouts and 5xx: bounded, with backoff, every attempt recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from tests.ports import closed_port

from assay.cases import Case
from assay.grading import StructuredGrader
from assay.outcomes import Answer, Error, Record
from assay.runner import Execution, RunOptions, Timing, WorkItem, run_item
from assay.targets import build_target
from assay.targets.function import FunctionTarget

CASE = Case(id="E1", slice="s", question="q", expected_behavior="answer", expected_fact="return_30")


async def _listen(port: int) -> web.AppRunner:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"kind": "answer", "fact": "return_30"})

    app = web.Application()
    app.router.add_post("/ask", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


async def _run_http(
    url: str, retries: int, on_sleep: Callable[[], Awaitable[None]] | None = None
) -> tuple[Record, list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if on_sleep is not None:
            await on_sleep()

    target: Any = build_target({"type": "http", "url": url})
    options = RunOptions(retries=retries, timeout_s=10, backoff_s=1.0)
    timing = Timing(sleep, random=lambda: 1)
    ex = Execution(target, options, StructuredGrader(), "r1", timing=timing)
    await target.start()
    try:
        done = await run_item(ex, WorkItem(0, CASE, 1))
    finally:
        await target.aclose()
    return done.record, waits


def test_a_refused_connection_is_retried_until_the_server_accepts() -> None:
    servers: list[web.AppRunner] = []

    async def start_server() -> None:  # the server comes up during the first backoff
        if not servers:
            servers.append(await _listen(port))

    async def scenario() -> tuple[Record, list[float]]:
        try:
            return await _run_http(f"http://127.0.0.1:{port}/ask", 3, start_server)
        finally:
            for runner in servers:
                await runner.cleanup()

    with closed_port() as port:  # until the server listens on it
        record, waits = asyncio.run(scenario())
    assert record.outcome == Answer(fact="return_30")
    assert record.attempts == 2
    assert record.extra["attempt_errors"] == ["connection_error"]
    (failed,) = record.extra["failed_attempts"]  # each retried attempt, in full
    assert failed["error_class"] == "connection_error" and failed["waited_s"] == 1.0
    assert f"127.0.0.1:{port}" in failed["message"] and failed["latency_ms"] >= 0
    assert waits == [1.0]


def test_retries_of_a_refused_connection_are_bounded_and_the_error_kept() -> None:
    with closed_port() as port:
        record, waits = asyncio.run(_run_http(f"http://127.0.0.1:{port}/ask", 2))
    assert isinstance(record.outcome, Error)
    assert record.outcome.error_class == "connection_error"
    assert (
        record.outcome.message
        == f"no connection to http://127.0.0.1:{port}/ask: connection refused"
    )
    assert record.attempts == 3
    assert record.extra["attempt_errors"] == ["connection_error"] * 2
    assert waits == [1.0, 2.0]  # exponential backoff


def test_a_connection_closed_without_a_reply_is_a_connection_error() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        writer.close()

    async def scenario() -> Record:
        server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            record, _ = await _run_http(f"http://127.0.0.1:{port}/ask", 0)
        return record

    record = asyncio.run(scenario())
    assert isinstance(record.outcome, Error)
    assert record.outcome.error_class == "connection_error"
    assert "the server closed the connection without a reply" in (record.outcome.message or "")
    assert record.attempts == 1


class RequestException(OSError):
    """Shaped like requests' exceptions: an OSError, not Python's ConnectionError."""


class ConnectionError_(RequestException):
    pass


ConnectionError_.__name__ = "ConnectionError"  # as requests.exceptions.ConnectionError


class ConnectError(Exception):
    """Named like httpx.ConnectError."""


@pytest.mark.parametrize(
    "error", [ConnectionRefusedError, ConnectionResetError, ConnectionError_, ConnectError]
)
def test_a_callable_raising_a_connection_error_is_retried(error: type[Exception]) -> None:
    calls: list[int] = []

    def flaky(case: Case) -> dict[str, str]:
        calls.append(1)
        if len(calls) == 1:
            raise error("the service is down")
        return {"kind": "answer", "fact": "return_30"}

    async def nap(seconds: float) -> None:
        return None

    ex = Execution(
        FunctionTarget(flaky), RunOptions(retries=1), StructuredGrader(), "r1", timing=Timing(nap)
    )
    record = asyncio.run(run_item(ex, WorkItem(0, CASE, 1))).record
    assert record.outcome == Answer(fact="return_30")
    assert record.extra["attempt_errors"] == ["connection_error"]
