"""A fault-injecting OpenAI-compatible server (127.0.0.1 only), for tests and benchmarks.

Every POST to ``/v1/chat/completions`` is answered like ``mock_openai.py`` (a JSON answer
outcome naming the ``[fact:X]`` of the prompt), except that a seeded share of requests
(``--fault-rate``) gets one fault, drawn evenly from ``--faults``:

- ``http_500``: a 500 with a JSON error body
- ``http_429``: a 429 with ``Retry-After: --retry-after`` seconds
- ``reset``: the connection is closed without a reply
- ``hang``: no reply for ``--hang-s`` seconds (past the client's timeout), then a 504
- ``garbage``: a 200 whose body is not JSON
- ``truncated``: a 200 whose JSON body is cut short
- ``empty``: a 200 with an empty body
- ``echo``: a 401 whose body echoes the caller's ``Authorization`` header

Counters (requests, faults by kind, answers) are kept per server; ``--stats FILE``
writes them as JSON when the server stops. It prints ``listening http://127.0.0.1:PORT``
once it accepts connections and runs until SIGTERM or SIGINT.

    python bench/mock_faults.py --port 0 --fault-rate 0.3 --seed 7 --stats faults.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from mock_openai import _fact_for, completion

HOST = "127.0.0.1"
FAULTS = ("http_500", "http_429", "reset", "hang", "garbage", "truncated", "empty", "echo")


@dataclass(frozen=True)
class FaultConfig:
    """Which faults, how often, and the seed that makes a run repeatable."""

    fault_rate: float = 0.3
    faults: tuple[str, ...] = FAULTS
    retry_after_s: float = 0.0
    hang_s: float = 5.0
    latency_ms: float = 0.0
    seed: int = 0
    fact: str = "ok"


@dataclass
class FaultServer:
    """The request handler and what it did."""

    config: FaultConfig
    requests: int = 0
    answered: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.config.seed)

    def stats(self) -> dict[str, Any]:
        """Requests received, answers given and faults injected, by kind."""
        return {
            "requests": self.requests,
            "answered": self.answered,
            "faults": dict(sorted(self.faults.items())),
            "faulted": sum(self.faults.values()),
        }

    async def chat(self, request: web.Request) -> web.StreamResponse:
        """Answer one chat-completions request, or inject a fault."""
        self.requests += 1
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        if self.config.latency_ms > 0:
            await asyncio.sleep(self.config.latency_ms / 1000)
        if self.config.faults and self.rng.random() < self.config.fault_rate:
            fault = self.rng.choice(self.config.faults)
            self.faults[fault] += 1
            return await self._fault(fault, request)
        self.answered += 1
        return web.json_response(completion(body, _fact_for(body, self.config.fact), self.requests))

    async def _fault(self, fault: str, request: web.Request) -> web.StreamResponse:
        if fault == "http_500":
            return web.json_response({"error": {"message": "injected failure"}}, status=500)
        if fault == "http_429":
            headers = {"Retry-After": f"{self.config.retry_after_s:g}"}
            return web.json_response(
                {"error": {"message": "slow down"}}, status=429, headers=headers
            )
        if fault == "reset":
            if request.transport is not None:
                request.transport.abort()
            return web.Response()  # never sent: the connection is gone
        if fault == "hang":
            await asyncio.sleep(self.config.hang_s)
            return web.json_response({"error": {"message": "gateway timeout"}}, status=504)
        if fault == "garbage":
            return web.Response(text="<html>upstream error</html>", content_type="application/json")
        if fault == "truncated":
            return web.Response(
                text='{"choices": [{"message": {"content": "{\\"ki', content_type="application/json"
            )
        if fault == "empty":
            return web.Response(body=b"", content_type="application/json")
        echoed = request.headers.get("Authorization", "")
        return web.json_response(
            {"error": {"message": f"invalid credentials: {echoed}"}}, status=401
        )


def build_app(server: FaultServer) -> web.Application:
    """The aiohttp application serving ``server``'s endpoint."""
    app = web.Application()
    app.router.add_post("/v1/chat/completions", server.chat)
    return app


async def serve(config: FaultConfig, port: int, stats: Path | None) -> None:
    """Serve on 127.0.0.1:``port`` (0 picks a free port) until SIGTERM or SIGINT."""
    server = FaultServer(config)
    runner = web.AppRunner(build_app(server), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, port, backlog=1024)
    await site.start()
    print(f"listening http://{HOST}:{runner.addresses[0][1]}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        if stats is not None:
            stats.write_text(json.dumps(server.stats(), indent=2) + "\n")
        await runner.cleanup()


def parse_args(argv: list[str] | None = None) -> tuple[FaultConfig, int, Path | None]:
    """The server's configuration, port and stats file from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--fault-rate", type=float, default=0.3, help="share of requests faulted")
    parser.add_argument("--faults", default=",".join(FAULTS), help="kinds to draw from (a,b)")
    parser.add_argument("--retry-after", type=float, default=0.0, help="seconds, for 429s")
    parser.add_argument("--hang-s", type=float, default=5.0, help="how long a hang lasts")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fact", default="ok", help="fact answered when none is in the prompt")
    parser.add_argument("--stats", type=Path, help="write the counters here (JSON) at the end")
    args = parser.parse_args(argv)
    faults = tuple(f.strip() for f in args.faults.split(",") if f.strip())
    unknown = sorted(set(faults) - set(FAULTS))
    if unknown:
        parser.error(f"unknown faults {', '.join(unknown)}; known: {', '.join(FAULTS)}")
    if not 0.0 <= args.fault_rate <= 1.0:
        parser.error("--fault-rate must be between 0 and 1")
    config = FaultConfig(
        fault_rate=args.fault_rate,
        faults=faults,
        retry_after_s=args.retry_after,
        hang_s=args.hang_s,
        latency_ms=args.latency_ms,
        seed=args.seed,
        fact=args.fact,
    )
    return config, args.port, args.stats


def main(argv: list[str] | None = None) -> None:
    """Run the server until stopped."""
    config, port, stats = parse_args(argv)
    try:
        asyncio.run(serve(config, port, stats))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
