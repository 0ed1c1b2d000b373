"""An optional CPU-time profile of a driver's measured section (standard library only)."""

from __future__ import annotations

import cProfile
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def profiled(path: str | None) -> Iterator[None]:
    """Profile the block with a CPU-time clock and write the stats to ``path`` (if given)."""
    if path is None:
        yield
        return
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        profiler.dump_stats(path)
