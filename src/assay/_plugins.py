"""Loading one plugin entry point: a clear message names the plugin when it fails."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import TypeVar

from assay.errors import AssayConfigError

Kind = TypeVar("Kind")


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
