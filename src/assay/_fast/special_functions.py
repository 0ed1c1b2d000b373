"""scipy's special functions that the exact intervals need: betaincinv, ndtri and stdtrit.

``import scipy.special`` costs a quarter of a second, most of it in its array-API layer
(which pulls in numpy's testing and f2py machinery) rather than in the functions. They are
numpy ufuncs compiled in one extension module, ``scipy.special._ufuncs``; this module loads
that extension alone under its own name, so the functions are the very objects that
``scipy.special`` exports (the same C code: every interval is bit-identical), and a later
``import scipy.special`` by anyone finds the extension loaded and exports the same objects.
On any failure it falls back to ``import scipy.special``.

What it saves: the start-up of a command that computes an exact interval at another level
than 95% or a clustered one, measured in bench/RESULTS.md, section ``speed_tricks``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
import types
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

_PACKAGE = "scipy.special"
_UFUNCS = "scipy.special._ufuncs"
_LOCK = threading.Lock()


class Special(NamedTuple):
    """The three ufuncs (numpy.ufunc objects, typed loosely: scipy ships no stubs)."""

    betaincinv: Any
    ndtri: Any
    stdtrit: Any


def _of(module: Any) -> Special:
    return Special(module.betaincinv, module.ndtri, module.stdtrit)


def _extension_alone() -> Special:
    """Load ``scipy.special._ufuncs`` without running ``scipy/special/__init__.py``."""
    import scipy  # the real package: numpy and scipy's own start-up

    folders = [str(Path(root) / "special") for root in scipy.__path__]
    spec = importlib.machinery.PathFinder.find_spec(_UFUNCS, folders)
    if spec is None or spec.loader is None:
        raise ImportError(f"no compiled {_UFUNCS} in {folders}")
    # While the extension loads, its own imports (scipy.special._ufuncs_cxx) need a parent
    # package; a bare one stands in and is removed at once, whatever happens.
    parent = types.ModuleType(_PACKAGE)
    parent.__path__ = folders
    parent.__spec__ = importlib.machinery.ModuleSpec(_PACKAGE, None, is_package=True)
    parent.__spec__.submodule_search_locations = folders
    # Marked as initialising, another thread's `import scipy.special` waits for the
    # module lock held below instead of taking the stand-in.
    parent.__spec__._initializing = True  # type: ignore[attr-defined]
    with _module_lock(_PACKAGE):
        if _PACKAGE in sys.modules or _UFUNCS in sys.modules:
            raise ImportError(f"{_PACKAGE} was imported meanwhile")
        sys.modules[_PACKAGE] = parent
        try:
            module = importlib.util.module_from_spec(spec)
            sys.modules[_UFUNCS] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(_UFUNCS, None)
                raise
        finally:
            if sys.modules.get(_PACKAGE) is parent:
                del sys.modules[_PACKAGE]
    return _of(module)


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


def _module_lock(name: str) -> Any:
    """The import system's lock for ``name`` (what ``import name`` takes), if this Python
    exposes it."""
    bootstrap = getattr(importlib, "_bootstrap", None)
    manager = getattr(bootstrap, "_ModuleLockManager", None)
    return manager(name) if manager is not None else _NoLock()


@cache
def special() -> Special:
    """betaincinv, ndtri and stdtrit, loaded once."""
    with _LOCK:
        if _PACKAGE not in sys.modules and _UFUNCS not in sys.modules:
            try:
                return _extension_alone()
            except Exception:  # the package import below says what failed
                pass
        if _UFUNCS in sys.modules and _PACKAGE not in sys.modules:
            return _of(sys.modules[_UFUNCS])
        import scipy.special

        return _of(scipy.special)
