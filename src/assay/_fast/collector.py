"""Python's cycle collector while a run executes: collected less often.

What it saves (CPU time of ``assay run``) is measured in bench/RESULTS.md, section
``speed_tricks``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

RUN_THRESHOLD = 10_000
"""Net new container objects between two young-generation collections during a run
(Python's default is 700)."""


_ACTIVE = [0]  # run_collection blocks entered and not yet left


@contextmanager
def run_collection() -> Iterator[None]:
    """Collect cycles less often while the block runs, as it was after.

    Objects alive before the run (modules, the cases) are frozen: full collections do not
    rescan them. Each case-trial in flight holds a few hundred young objects (its request,
    spans, record and judgment) until it is stored; at the default threshold they are
    collected every few case-trials and promoted, and the older generations' collections
    then rescan them, which cost a fifth of a case-trial's CPU. A higher threshold still
    collects cycles, a few times per thousand case-trials.

    A block inside another changes nothing: the outermost one restores the collector.
    """
    if _ACTIVE[0]:
        _ACTIVE[0] += 1
        try:
            yield
        finally:
            _ACTIVE[0] -= 1
        return
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], RUN_THRESHOLD), *threshold[1:])
    _ACTIVE[0] = 1
    try:
        yield
    finally:
        _ACTIVE[0] = 0
        gc.set_threshold(*threshold)
        gc.unfreeze()
