"""The target protocol: anything that turns a case into an outcome.

A target never raises for a failure of the system under test: the runner turns exceptions
into ``error`` outcomes, and targets report HTTP failures, timeouts and unparsable replies
as ``Error`` outcomes with a class (``timeout``, ``http_429``, ``http_5xx``,
``parse_error``, ``exception:<Type>``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from assay.cases import Case
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
    """Turns a case into a ``Reply``.

    Example::

        class Echo:
            name = "echo"

            def config(self) -> dict[str, Any]:
                return {"type": "echo"}

            async def run(self, case: Case, ctx: TargetContext) -> Reply:
                return Reply(Answer(fact=case.expected_fact, text=case.prompt))

    ``config()`` returns the target's settings without secrets; its hash is recorded with
    every run so that scores are reproducible. A target may also define
    ``async start()`` and ``async aclose()``: the runner awaits them on its event loop
    before the first call and after the last (to open and close an HTTP session, or to
    check that an API key is set). A target that sends secrets may define
    ``secrets()`` returning them once started: the runner masks them in every reply
    (every outcome kind, every encoding a server may echo) before it is recorded.
    """

    name: str

    def config(self) -> dict[str, Any]: ...

    async def run(self, case: Case, ctx: TargetContext) -> Reply: ...
