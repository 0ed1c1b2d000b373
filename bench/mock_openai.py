"""A mock OpenAI-compatible chat-completions server for benchmarks (127.0.0.1 only).

Every POST to ``/v1/chat/completions`` waits ``--latency-ms``, then answers with a valid
``chat.completion`` whose message content is a JSON outcome (``{"kind": "answer", "fact":
...}``) and a ``usage`` block. A seeded RNG turns a share of requests into HTTP 500
(``--error-rate``) or HTTP 429 with ``Retry-After`` (``--429-rate``). The server prints
``listening http://127.0.0.1:PORT`` on stdout once it accepts connections and runs until it
receives SIGTERM or SIGINT.

    python bench/mock_openai.py --port 0 --latency-ms 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

HOST = "127.0.0.1"
FACT_IN_PROMPT = re.compile(r"\[fact:([A-Za-z0-9_.-]+)\]")


@dataclass(frozen=True)
class MockConfig:
    """How the mock behaves: latency, failure shares, RNG seed and the fact it answers."""

    latency_ms: float = 0.0
    error_rate: float = 0.0
    rate_429: float = 0.0
    retry_after_s: float = 0.0
    seed: int = 0
    fact: str = "ok"


def _fact_for(body: dict[str, Any], default: str) -> str:
    """The fact named as ``[fact:X]`` in the last message, else ``default``."""
    messages = body.get("messages") or []
    content = messages[-1].get("content", "") if messages else ""
    match = FACT_IN_PROMPT.search(content) if isinstance(content, str) else None
    return match.group(1) if match else default


def completion(body: dict[str, Any], fact: str, serial: int) -> dict[str, Any]:
    """A ``chat.completion`` answering ``body`` with a JSON answer outcome for ``fact``."""
    outcome = {"kind": "answer", "fact": fact, "text": f"The answer is {fact}.", "citations": []}
    content = json.dumps(outcome)
    return {
        "id": f"chatcmpl-mock-{serial}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "mock-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 42, "completion_tokens": 17, "total_tokens": 59},
        "system_fingerprint": "fp_mock",
    }


class MockServer:
    """The request handler and its counters."""

    def __init__(self, config: MockConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        self.served = 0
        self.failed = 0

    async def chat(self, request: web.Request) -> web.Response:
        """Answer one chat-completions request after the configured latency."""
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        if self.config.latency_ms > 0:
            await asyncio.sleep(self.config.latency_ms / 1000)
        draw = self.rng.random()
        if draw < self.config.rate_429:
            self.failed += 1
            headers = {"Retry-After": f"{self.config.retry_after_s:g}"}
            error = {"error": {"message": "rate limited", "type": "rate_limit_error"}}
            return web.json_response(error, status=429, headers=headers)
        if draw < self.config.rate_429 + self.config.error_rate:
            self.failed += 1
            return web.json_response({"error": {"message": "mock failure"}}, status=500)
        self.served += 1
        reply = completion(body, _fact_for(body, self.config.fact), self.served)
        return web.json_response(reply)

    async def stats(self, request: web.Request) -> web.Response:
        """How many requests were answered and failed so far (benchmarks count calls)."""
        return web.json_response({"served": self.served, "failed": self.failed})

    async def models(self, request: web.Request) -> web.Response:
        """List the one model the mock pretends to serve."""
        return web.json_response(
            {"object": "list", "data": [{"id": "mock-model", "object": "model"}]}
        )


def build_app(config: MockConfig) -> web.Application:
    """The aiohttp application serving the mock endpoints."""
    server = MockServer(config)
    app = web.Application()
    app.router.add_post("/v1/chat/completions", server.chat)
    app.router.add_get("/v1/models", server.models)
    app.router.add_get("/stats", server.stats)
    return app


async def serve(config: MockConfig, port: int) -> None:
    """Serve on 127.0.0.1:``port`` (0 picks a free port) until SIGTERM or SIGINT."""
    runner = web.AppRunner(build_app(config), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, port, backlog=1024)
    await site.start()
    bound = runner.addresses[0][1]
    print(f"listening http://{HOST}:{bound}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def parse_args(argv: list[str] | None = None) -> tuple[MockConfig, int]:
    """The mock's configuration and port from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--error-rate", type=float, default=0.0, help="share answered 500")
    parser.add_argument("--429-rate", dest="rate_429", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=0.0, help="seconds, for 429s")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fact", default="ok", help="fact answered when none is in the prompt")
    args = parser.parse_args(argv)
    for name in ("error_rate", "rate_429"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            parser.error(f"--{name.replace('_', '-')} must be between 0 and 1")
    config = MockConfig(
        latency_ms=args.latency_ms,
        error_rate=args.error_rate,
        rate_429=args.rate_429,
        retry_after_s=args.retry_after,
        seed=args.seed,
        fact=args.fact,
    )
    return config, args.port


def main(argv: list[str] | None = None) -> None:
    """Run the mock server until stopped."""
    config, port = parse_args(argv)
    try:
        asyncio.run(serve(config, port))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
