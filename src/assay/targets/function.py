"""The ``function`` target: a Python callable named ``module:function``.

The callable takes the case (and, if it accepts a second argument, the ``TargetContext``)
and returns an outcome, a flat outcome mapping (``{"kind": "answer", "fact": ...}``, which
may carry the trajectory of an agent loop the application runs itself: docs/agents.md) or
a ``Reply``. It may be sync or async; a sync callable runs in a worker thread so a slow one
does not stall the other cases. Modules are imported from the suite's directory first.

Worker threads are daemon threads, one per call, at most ``THREADS`` at once: a call that
overruns its timeout (or is abandoned by Ctrl-C) frees its place at once and never keeps
the process from ending, although Python cannot stop the function itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import importlib
import inspect
import os
import re
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay._fast.modules import forget_package, loaded
from assay.cases import Case
from assay.errors import AssayConfigError
from assay.targets._base import BaseTarget, Reply, TargetContext, TargetType
from assay.targets._replies import as_reply, exception_reply


class FunctionSettings(BaseModel):
    """Suite settings of a ``function`` target."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = "function"
    callable: str = Field(
        description="module:function (an absolute module path, e.g. my_app.eval:answer)",
    )

    @field_validator("callable")
    @classmethod
    def _module_colon_function(cls, value: str) -> str:
        # Absolute module paths only: a leading dot (relative import) has no package to
        # be relative to, and empty parts ("a..b") name nothing.
        if _SPEC.fullmatch(value):
            return value
        module, dot, name = value.rpartition(".")
        hint = (
            f"; did you mean '{module}:{name}'?"
            if ":" not in value and dot and _SPEC.fullmatch(f"{module}:{name}")
            else ""
        )
        raise ValueError(
            f"{value!r} is not module:function (a module path, a colon, then the "
            f"function's name, e.g. my_app.eval:answer){hint}"
        )


_SPEC = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _raised_at(err: BaseException, module_name: str) -> str:
    """' (at file.py:3)': the last place in the user's code the import went through."""
    if isinstance(err, SyntaxError) and err.filename:
        return f" (at {err.filename}:{err.lineno})"
    frames = traceback.extract_tb(err.__traceback__)
    own = [f for f in frames if "importlib" not in f.filename and f.filename != __file__]
    return f" (at {own[-1].filename}:{own[-1].lineno})" if own else ""


def import_callable(spec: str, base_dir: Path | None = None) -> Callable[..., Any]:
    """The object named ``module:attribute`` (the module looked up in ``base_dir`` first)."""
    module_name, _, attr = spec.partition(":")
    if base_dir is not None:
        if str(base_dir) in sys.path:
            sys.path.remove(str(base_dir))
        sys.path.insert(0, str(base_dir))
        _forget_shadowed(module_name, base_dir)
    try:
        obj: Any = importlib.import_module(module_name)
    except (ImportError, TypeError, ValueError) as err:  # TypeError: a relative name
        where = f" (looked in {base_dir} and the Python path)" if base_dir else ""
        raise AssayConfigError(
            f"target.callable {spec}: cannot import {module_name}{where}: {err}"
        ) from None
    except SyntaxError as err:
        raise AssayConfigError(
            f"target.callable {spec}: {module_name} has a syntax error"
            f"{_raised_at(err, module_name)}: {err.msg}"
        ) from None
    except (Exception, SystemExit) as err:  # the module's own code failed as it was imported
        raise AssayConfigError(
            f"target.callable {spec}: importing {module_name} raised "
            f"{type(err).__name__}: {err}{_raised_at(err, module_name)}"
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AssayConfigError(f"target.callable {spec}: {module_name} has no {attr}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AssayConfigError(f"target.callable {spec}: {attr} is not callable")
    return obj  # type: ignore[no-any-return]


def _forget_shadowed(module_name: str, base_dir: Path) -> None:
    """Drop an imported package or module of the same top-level name that is not the one in
    ``base_dir``: two suites in one process, each with its own ``app.py``, get their own."""
    top = module_name.partition(".")[0]
    imported = loaded(top)
    here = base_dir / f"{top}.py", base_dir / top / "__init__.py"
    if imported is None or not any(p.is_file() for p in here):
        return
    where = getattr(imported, "__file__", None)
    if where is not None and Path(where).resolve() in {p.resolve() for p in here}:
        return
    forget_package(top)


def _wants_context(func: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


class ThreadRaised(Exception):
    """Carries a ``BaseException`` (``SystemExit``, ``GeneratorExit``…) out of a worker
    thread: thrown into the awaiting coroutine as it is, ``GeneratorExit`` would skip
    every handler between it and the task."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


THREADS = min(32, (os.cpu_count() or 1) + 4)  # as asyncio's default executor


def in_daemon_thread(func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """``func(*args)`` in a new daemon thread (with the caller's context variables, so
    tracing spans nest), as a future of the running loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(ok: bool, value: Any) -> None:
        if future.done():  # the caller stopped waiting (timeout, Ctrl-C)
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            found: tuple[bool, Any] = (True, context.run(func, *args))
        except Exception as err:  # handed to the awaiting coroutine
            found = (False, err)
        except BaseException as err:  # its own sys.exit() and kin
            found = (False, ThreadRaised(err))
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is waiting
            loop.call_soon_threadsafe(deliver, *found)

    threading.Thread(target=work, name="assay-function-target", daemon=True).start()
    return future


class FunctionTarget(BaseTarget):
    """Calls a Python function for each case."""

    name = "function"

    def __init__(self, func: Callable[..., Any], spec: str | None = None) -> None:
        self.func = func
        self.spec = spec or f"{func.__module__}:{func.__qualname__}"
        self._is_async = inspect.iscoroutinefunction(func)
        self._with_ctx = _wants_context(func)
        self._slots: asyncio.Semaphore | None = None

    @classmethod
    def from_settings(cls, settings: FunctionSettings, base_dir: Path | None) -> FunctionTarget:
        return cls(import_callable(settings.callable, base_dir), settings.callable)

    def config(self) -> dict[str, Any]:
        return {"type": "function", "callable": self.spec}

    async def start(self) -> None:
        self._slots = asyncio.Semaphore(THREADS)  # bound to this run's event loop

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        args = (case, ctx) if self._with_ctx else (case,)
        if self._is_async:
            value = await self.func(*args)
        else:
            if self._slots is None:
                await self.start()
            assert self._slots is not None
            async with self._slots:
                try:
                    value = await in_daemon_thread(self.func, *args)
                except ThreadRaised as raised:
                    return exception_reply(raised.error)
            if inspect.isawaitable(value):
                value = await value
        return as_reply(value)


FUNCTION_TARGET = TargetType(FunctionSettings, FunctionTarget.from_settings)
