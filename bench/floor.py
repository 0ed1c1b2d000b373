"""The bare-client floor: N chat requests at concurrency C with plain asyncio + aiohttp.

It sends the same requests as every other driver, parses each reply and its JSON content,
and nothing more: the least a client can spend. Prints one JSON object: wall time, process
CPU time (``time.process_time``) and failures.

    python bench/floor.py --base-url http://127.0.0.1:8000/v1 -n 2000 -c 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import asdict, dataclass

import aiohttp
from _profiling import profiled
from workload import cases, chat_request


@dataclass(frozen=True)
class Measure:
    """What one driver measured for its work phase."""

    system: str
    cases: int
    concurrency: int
    wall_s: float
    cpu_s: float
    failures: int

    @property
    def cpu_ms_per_case(self) -> float:
        """Process CPU time per case, in milliseconds."""
        return 1000 * self.cpu_s / self.cases if self.cases else float("nan")


async def _send_all(url: str, n: int, concurrency: int) -> int:
    """Send ``n`` requests with at most ``concurrency`` in flight; return the failures."""
    bodies = [chat_request(record["question"]) for record in cases(n)]
    gate = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    failures = 0
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(body: dict[str, object]) -> None:
            nonlocal failures
            async with gate:
                try:
                    async with session.post(url, json=body) as response:
                        payload = await response.json()
                        if response.status != 200:
                            failures += 1
                            return
                        json.loads(payload["choices"][0]["message"]["content"])
                except (aiohttp.ClientError, ValueError, KeyError):
                    failures += 1

        await asyncio.gather(*(one(body) for body in bodies))
    return failures


def run_floor(base_url: str, n: int, concurrency: int, profile: str | None = None) -> Measure:
    """Run the floor workload against ``base_url`` (ending in ``/v1``) and measure it."""
    url = base_url.rstrip("/") + "/chat/completions"
    with profiled(profile):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        failures = asyncio.run(_send_all(url, n, concurrency))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return Measure("floor", n, concurrency, wall, cpu, failures)


def main(argv: list[str] | None = None) -> None:
    """Run the floor once and print its measure as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("-n", type=int, default=2000, help="requests")
    parser.add_argument("-c", type=int, default=100, help="concurrency")
    parser.add_argument("--profile", metavar="FILE", help="write a CPU profile of the run")
    args = parser.parse_args(argv)
    print(json.dumps(asdict(run_floor(args.base_url, args.n, args.c, args.profile))))


if __name__ == "__main__":
    main()
