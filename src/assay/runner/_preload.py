"""Imports that the end of a run needs, done in a thread while the run waits on its target.

Building the report of a big run, or of several trials, needs scipy's special functions (the
exact intervals), whose loading is a large part of a short run's fixed cost. Started when the
case-trials start, the loading overlaps the network wait instead of following it. The
report's own call then finds them loaded (or waits for the thread). A small run's 95% limits
are read from a table (``assay.metrics._beta_table``): it loads nothing.
"""

from __future__ import annotations

import importlib
import threading

from assay.metrics import LARGEST_N

# "module" is imported; "module:function" is imported and its function called.
REPORT_MODULES = ("assay._fast.special_functions:special",)


def report_needs_special(cases: int, trials: int) -> bool:
    """Whether the report of a run of ``cases`` cases, ``trials`` trials each, needs scipy
    for its 95% intervals: more cases than the table of limits holds, or several trials
    (their intervals are clustered by case)."""

    return trials > 1 or cases > LARGEST_N


def preload(modules: tuple[str, ...] = REPORT_MODULES) -> threading.Thread:
    """Start importing ``modules`` (and calling the functions named) in a daemon thread;
    returns the thread."""

    def load() -> None:
        for entry in modules:
            name, _, function = entry.partition(":")
            try:
                module = importlib.import_module(name)
                if function:
                    getattr(module, function)()
            except Exception:  # the report's own import says what failed
                continue

    thread = threading.Thread(target=load, name="assay-preload", daemon=True)
    thread.start()
    return thread
