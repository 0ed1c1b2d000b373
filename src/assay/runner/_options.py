"""How a run calls its target: concurrency, timeouts, retries, pacing, and the clock."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from assay.targets import RETRYABLE


@dataclass(frozen=True)
class RunOptions:
    """Settings of the runner (the suite's keys, possibly overridden on the command line).

    A failed attempt whose error class is in ``retry_on`` is retried up to ``retries``
    times, waiting ``backoff_s · 2^(n-1)`` (at most ``max_backoff_s``) with jitter, or at
    least the server's Retry-After (at most ``max_retry_after_s``).
    """

    concurrency: int = 8
    trials: int = 1
    timeout_s: float = 60.0
    retries: int = 2
    rpm: float | None = None
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0
    max_retry_after_s: float = 120.0
    retry_on: frozenset[str] = RETRYABLE
    batch_size: int = 200
    flush_s: float = 0.25
    # An event loop that does not run for timeout_s plus this is blocked by a target. The
    # grace covers the store's own waits (SQLite waits up to 10 s for a lock).
    blocked_grace_s: float = 15.0


@dataclass(frozen=True)
class Timing:
    """The runner's clock, sleep and randomness: real by default, injectable in tests."""

    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    random: Callable[[], float] = field(default=random.random)


def backoff_delay(
    attempt: int, retry_after_s: float | None, options: RunOptions, rand: Callable[[], float]
) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1-based).

    Equal jitter (half fixed, half random) keeps retries of many concurrent cases from
    arriving together while never waiting less than half the exponential step.
    """
    step: float = min(options.max_backoff_s, options.backoff_s * 2 ** (attempt - 1))
    delay = step * (0.5 + 0.5 * float(rand()))
    if retry_after_s is not None:
        delay = max(delay, min(retry_after_s, options.max_retry_after_s))
    return delay


class RateLimiter:
    """Spaces calls evenly so that at most ``rpm`` start in any minute."""

    def __init__(self, rpm: float, timing: Timing) -> None:
        self.interval = 60.0 / rpm
        self.timing = timing
        self._next: float | None = None

    async def acquire(self) -> None:
        now = self.timing.clock()
        slot = now if self._next is None else max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await self.timing.sleep(slot - now)
