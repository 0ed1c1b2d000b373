"""Imports that the end of a run needs, done in a thread while the run waits on its target.

Building the report needs scipy's special functions (the exact intervals), whose import
is a large part of a short run's fixed cost. Started when the case-trials start, the import
overlaps the network wait instead of following it. The report's own import of the same
module then finds it loaded (or waits for the thread under Python's import lock).
"""

from __future__ import annotations

import importlib
import threading

REPORT_MODULES = ("scipy.special",)


def preload(modules: tuple[str, ...] = REPORT_MODULES) -> threading.Thread:
    """Start importing ``modules`` in a daemon thread; returns the thread."""

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # the report's own import says what failed
                continue

    thread = threading.Thread(target=load, name="assay-preload", daemon=True)
    thread.start()
    return thread
