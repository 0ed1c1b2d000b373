"""The target protocol: anything that turns a case into an outcome.

A target never raises for a failure of the system under test: the runner turns exceptions
into ``error`` outcomes, and targets report HTTP failures, timeouts and unparsable replies
as ``Error`` outcomes with a class (``timeout``, ``http_429``, ``http_5xx``,
``parse_error``, ``exception:<Type>``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from pydantic import BaseModel

from assay.cases import Case, Dataset
from assay.outcomes import Outcome, Usage

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer


@dataclass(frozen=True)
class TargetContext:
    """What the runner passes to a target for one attempt at one case-trial.

    ``tracer`` (when tracing is on) lets a target add its own stage spans under the
    runner's request span; ``traceparent`` is the W3C header value an HTTP target forwards,
    ``tracestate`` the W3C trace state of the trace it continues (None when empty).
    """

    run_id: str
    trial: int = 1
    attempt: int = 1
    tracer: Tracer | None = None
    traceparent: str | None = None
    tracestate: str | None = None


@dataclass(frozen=True)
class Reply:
    """A target's answer for one attempt: the outcome plus what was measured."""

    outcome: Outcome
    usage: Usage | None = None
    retry_after_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Target(Protocol):
    """Turns a case into a ``Reply``; started before the first call and closed after the last.

    Subclass ``BaseTarget`` to get the lifecycle's no-op defaults::

        class Echo(BaseTarget):
            name = "echo"

            def config(self) -> dict[str, Any]:
                return {"type": "echo"}

            async def run(self, case: Case, ctx: TargetContext) -> Reply:
                return Reply(Answer(fact=case.expected_fact, text=case.prompt))

    ``config()`` returns the target's settings without secrets; its hash is recorded with
    every run so that scores are reproducible. The runner awaits ``start()`` on its event
    loop before the first call and ``aclose()`` after the last (to open and close an HTTP
    session, or to check that an API key is set); ``async with target:`` does the same.
    ``secrets()`` returns what a started target sends that must never be recorded: the
    runner masks them in every reply (every outcome kind, every encoding a server may echo).
    ``use_dataset(dataset)`` hands the target the suite's dataset before the run (the
    ``openai`` target renders its prompts from it); ``request(case)`` is what the target
    would send for ``case`` (``--dry-run`` shows it, the response cache keys on it), or
    None when it sends nothing that can be shown (the cache then keys on the case).
    """

    name: str

    def config(self) -> dict[str, Any]:
        """The target's settings without secrets (hashed into every run's record)."""
        ...

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        """The reply to ``case`` (one call of one trial)."""
        ...

    async def start(self) -> None:
        """Get ready for the first call, on the runner's event loop."""
        ...

    async def aclose(self) -> None:
        """Release what ``start`` took, after the last call."""
        ...

    def secrets(self) -> tuple[str, ...]:
        """What this started target sends that must never be recorded."""
        ...

    def use_dataset(self, dataset: Dataset) -> None:
        """Take the suite's dataset before the run."""
        ...

    def request(self, case: Case) -> dict[str, Any] | None:
        """What would be sent for ``case``; None when nothing can be shown."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class BaseTarget:
    """The ``Target`` lifecycle with nothing to do: ``start``/``aclose`` do nothing, there
    are no secrets, the dataset is ignored, no request is shown, and ``async with`` starts
    and closes. A target overrides what it needs
    and defines ``name``, ``config()`` and ``run()``."""

    name: str

    async def start(self) -> None:
        """Get ready for the first call (nothing, unless overridden)."""

    async def aclose(self) -> None:
        """Release what ``start`` took (nothing, unless overridden)."""

    def secrets(self) -> tuple[str, ...]:
        """The secrets this started target sends (none, unless overridden)."""
        return ()

    def use_dataset(self, dataset: Dataset) -> None:
        """Take the suite's dataset before the run (ignored, unless overridden)."""

    def request(self, case: Case) -> dict[str, Any] | None:
        """What would be sent for ``case`` (None: nothing that can be shown, unless
        overridden)."""
        return None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@dataclass(frozen=True)
class TargetType:
    """A target type a suite names by ``type``: its settings model and how to build the
    target from validated settings and the suite's directory.

    An installed package makes one available to suites with an entry point in the
    ``assay.targets`` group naming a ``TargetType`` (docs/extending.md).
    """

    settings: type[BaseModel]
    build: Callable[[Any, Path | None], Target]
