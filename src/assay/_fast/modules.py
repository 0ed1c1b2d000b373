"""The interpreter's table of loaded modules (``sys.modules``), read and pruned here alone.

``loaded`` lets a command use a module only when something has loaded it already, instead
of importing it to find it has nothing to do (what it saves, a command's start-up, is in
bench/RESULTS.md, section ``speed_tricks``). ``forget_package`` is not for speed: it lets
two suites in one process each import their own module of the same name.
"""

from __future__ import annotations

import sys
from types import ModuleType


def loaded(name: str) -> ModuleType | None:
    """The module ``name`` if it has been imported, else None (nothing is imported)."""
    return sys.modules.get(name)


def forget_package(top: str) -> None:
    """Drop the imported module ``top`` and its submodules, so that the next import of
    ``top`` finds it again on the path."""
    for name in [n for n in sys.modules if n == top or n.startswith(f"{top}.")]:
        del sys.modules[name]
