"""Loading one plugin entry point: a clear message names the plugin when it fails."""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points
from typing import TypeVar

from assay.errors import AssayConfigError

Kind = TypeVar("Kind")


def installed_entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The entry points that installed packages declare in ``group``. Every installed
    package's metadata is read once per import path (not once per registry and run)."""
    return _by_group(tuple(sys.path)).get(group, ())


@lru_cache(maxsize=4)
def _by_group(path: tuple[str, ...]) -> dict[str, tuple[EntryPoint, ...]]:
    found = entry_points()
    return {group: tuple(found.select(group=group)) for group in found.groups}


def load_entry_point(point: EntryPoint, kind: type[Kind], what: str) -> Kind:
    """The object ``point`` names, which must be a ``kind``; ``what`` names the plugin in
    messages (``'grader "echo"'``)."""
    try:
        loaded = point.load()
    except Exception as err:  # a broken plugin is the user's to fix: say which one
        raise AssayConfigError(
            f"{what} (entry point {point.value}) could not be loaded: {type(err).__name__}: {err}"
        ) from err
    if not isinstance(loaded, kind):
        raise AssayConfigError(
            f"{what} (entry point {point.value}) is not a {kind.__name__}: {loaded!r}"
        )
    return loaded
