"""The Ray executor: each case-trial's call to the target runs on a Ray actor.

Only the call itself moves. Every actor builds the suite's target once and starts it, so
its client (HTTP session, connections) is reused for every call it serves. The driver keeps
the rest of the runner unchanged: the global concurrency (the driver never has more than
``concurrency`` calls out), the rate limit, timeouts, retries and Retry-After waits, trial
policy, spans, grading, the response cache and the store, which the driver writes as
results arrive. A call lost with its worker (the process died, the node went away) is sent
again to another actor: no attempt of the target is counted for it, and since only the
driver records, a case-trial is stored once or not at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay.cases import Case, Dataset
from assay.errors import AssayConfigError
from assay.runner._prepare import prepare_target
from assay.targets import (
    BaseTarget,
    Reply,
    Target,
    TargetContext,
    build_target,
    exception_reply,
    with_traceback,
)

# How many times one call is sent again after losing its worker before the run stops.
RESENDS = 8


@dataclass(frozen=True)
class RaySettings:
    """Where to run: ``address`` (None starts a local Ray instance, ``auto`` joins the
    cluster this machine belongs to, ``ray://host:10001`` a remote one through Ray Client)
    and how many actors (None: one per CPU of the cluster, at most ``concurrency``)."""

    address: str | None = None
    workers: int | None = None


class _Worker:
    """A Ray actor: one started target, serving calls concurrently."""

    def __init__(self, settings: Mapping[str, Any], base_dir: str, dataset: Dataset) -> None:
        self.target = build_target(dict(settings), Path(base_dir))
        prepare_target(self.target, dataset)
        self.started = False

    async def ready(self) -> int:
        """Start the target (once); returns this worker's process id."""
        import os

        if not self.started:
            await self.target.start()
            self.started = True
        return os.getpid()

    async def call(
        self, case: Case, run_id: str, trial: int, attempt: int, traceparent: str | None
    ) -> Reply:
        """One attempt at one case-trial."""
        if not self.started:  # a restarted actor starts its target again
            await self.ready()

        ctx = TargetContext(run_id, trial, attempt, None, traceparent)
        try:
            return await self.target.run(case, ctx)
        except asyncio.CancelledError:  # the driver gave up on this call (its timeout)
            raise
        except BaseException as err:  # the target's own failure, as the local runner records it
            return with_traceback(exception_reply(err), err)

    async def close(self) -> None:
        if self.started:
            await self.target.aclose()


class RayTarget(BaseTarget):
    """The suite's target, called on Ray actors (see the module's description).

    ``config()`` and ``name`` are the target's own, so a run's configuration hash is the
    same whichever executor ran it, and a run started on Ray resumes locally or on Ray.
    """

    def __init__(
        self,
        local: Target,
        settings: Mapping[str, Any],
        base_dir: Path,
        ray: RaySettings,
        concurrency: int,
    ) -> None:
        self.local = local
        self.name = local.name
        self.settings = dict(settings)
        self.base_dir = base_dir
        self.ray = ray
        self.concurrency = concurrency
        self.dataset: Dataset | None = None
        self.actors: list[Any] = []
        self.pids: list[int] = []
        self.resent = 0
        self._turn = itertools.count()
        self._owns_ray = False
        self._dataset_ref: Any = None

    def config(self) -> dict[str, Any]:
        return self.local.config()

    def secrets(self) -> tuple[str, ...]:
        return self.local.secrets()

    def use_dataset(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.local.use_dataset(dataset)

    def request(self, case: Case) -> dict[str, Any] | None:
        """The local target's request (the response cache keys on it)."""
        return self.local.request(case)

    async def start(self) -> None:
        """Join or start Ray and start every actor's target (a target that cannot start,
        e.g. a missing API key, fails here as it does locally)."""
        ray = _ray()
        await self.local.start()  # checks the settings here first, and knows the secrets
        if not ray.is_initialized():
            _init(ray, self.ray.address)
            self._owns_ray = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        count = max(1, min(self.ray.workers or cpus, self.concurrency))
        per_actor = max(1, -(-self.concurrency // count))
        remote = ray.remote(_Worker).options(
            max_concurrency=per_actor,
            max_restarts=-1,
            max_task_retries=0,
            num_cpus=0,
            scheduling_strategy="SPREAD",  # over the cluster's nodes, not all on the head
        )
        # Held by the driver for the whole run: a restarted actor is built from it again.
        self._dataset_ref = ray.put(self.dataset or Dataset(name="cases", cases=()))
        self.actors = [
            remote.remote(self.settings, str(self.base_dir), self._dataset_ref)
            for _ in range(count)
        ]
        self.pids = list(await asyncio.gather(*(a.ready.remote() for a in self.actors)))

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        ray = _ray()
        lost = 0
        while True:
            actor = self.actors[next(self._turn) % len(self.actors)]
            ref = actor.call.remote(case, ctx.run_id, ctx.trial, ctx.attempt, ctx.traceparent)
            try:
                reply: Reply = await ref
            except asyncio.CancelledError:
                ray.cancel(ref)
                raise
            except _lost_worker_errors(ray):
                lost += 1
                self.resent += 1
                if lost > RESENDS:
                    raise
                await asyncio.sleep(min(2.0, 0.1 * lost))
                continue
            if lost:
                return replace(reply, extra={**reply.extra, "ray": {"resent": lost}})
            return reply

    async def aclose(self) -> None:
        ray = _ray()
        for actor in self.actors:
            with contextlib.suppress(Exception):  # a worker already gone has nothing to close
                await actor.close.remote()
            ray.kill(actor)
        self.actors = []
        self._dataset_ref = None
        await self.local.aclose()
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False


def _lost_worker_errors(ray: Any) -> tuple[type[BaseException], ...]:
    exceptions = ray.exceptions
    return (
        exceptions.RayActorError,
        exceptions.WorkerCrashedError,
        exceptions.ObjectLostError,
        exceptions.NodeDiedError,
    )


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise AssayConfigError(
            "--executor ray needs Ray: pip install 'assay[ray]' (on the driver and on every "
            "worker of the cluster)"
        ) from None
    return ray


def _init(ray: Any, address: str | None) -> None:
    try:
        if address is None:
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise AssayConfigError(f"--address {address}: cannot join the Ray cluster: {err}") from None


def ray_target(
    target: Target, settings: Mapping[str, Any], base_dir: Path, ray: RaySettings, concurrency: int
) -> RayTarget:
    """``target`` (built from the suite's ``settings``) called on Ray actors."""
    _ray()  # a missing Ray is said before anything starts
    return RayTarget(target, settings, base_dir, ray, concurrency)
