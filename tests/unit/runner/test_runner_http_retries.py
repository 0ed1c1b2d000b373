"""Retry-After from a real HTTP reply, in both its forms, drives the runner's wait."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from aiohttp import web
from tests.loopback import Serve

from assay.cases import Case
from assay.grading import StructuredGrader
from assay.outcomes import Answer
from assay.runner import Execution, RunOptions, Timing, WorkItem, run_item
from assay.targets import build_target, retry_after_seconds

CASE = Case(id="E1", slice="s", question="q", expected_behavior="answer", expected_fact="f")


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(" 1.5 ") == 1.5
    assert retry_after_seconds("-3") == 0.0
    future = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    assert 3500 < (retry_after_seconds(future) or 0) <= 3600
    past = format_datetime(datetime(2001, 1, 1, tzinfo=UTC), usegmt=True)
    assert retry_after_seconds(past) == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_a_429_then_503_from_the_server_are_retried_after_the_waits_it_asks_for(
    serve: Serve,
) -> None:
    replies = iter(
        [
            web.json_response({"error": "slow down"}, status=429, headers={"Retry-After": "7"}),
            web.json_response({"error": "busy"}, status=503, headers={"Retry-After": "2"}),
            web.json_response({"kind": "answer", "fact": "f"}),
        ]
    )

    async def handler(request: web.Request) -> web.Response:
        return next(replies)

    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def scenario() -> Any:
        async with serve(handler) as base:
            target: Any = build_target({"type": "http", "url": f"{base}/ask"})
            timing = Timing(sleep, random=lambda: 0.0)
            ex = Execution(target, RunOptions(retries=3), StructuredGrader(), "r1", timing=timing)
            await target.start()
            try:
                return (await run_item(ex, WorkItem(0, CASE, 1))).record
            finally:
                await target.aclose()

    record = asyncio.run(scenario())
    assert record.outcome == Answer(fact="f")
    assert record.attempts == 3 and record.extra["attempt_errors"] == ["http_429", "http_5xx"]
    assert waits == [7.0, 2.0]  # the server's waits, longer than the backoff's 0.25 and 0.5
