"""One bounded attempt: its deadline gives a ``timeout`` error and leaves the task as it
found it; a cancellation by the runner still stops the call; what the target raises
itself (a CancelledError, a TimeoutError) is its own failure."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from assay.outcomes import Answer, Error
from assay.runner._execute import bounded
from assay.targets import Reply


def _error_class(reply: Reply) -> str:
    assert isinstance(reply.outcome, Error)
    return reply.outcome.error_class


def test_the_deadline_gives_a_timeout_and_the_task_can_wait_again() -> None:
    async def hang() -> Reply:
        await asyncio.sleep(30)
        raise AssertionError("not reached")

    async def main() -> tuple[Reply, int]:
        reply = await bounded(hang, 0.02)
        await asyncio.sleep(0)  # no cancellation left pending on the task
        task = asyncio.current_task()
        assert task is not None
        return reply, task.cancelling()

    reply, cancelling = asyncio.run(main())
    assert _error_class(reply) == "timeout"
    assert isinstance(reply.outcome, Error) and reply.outcome.message == "no reply within 0.02 s"
    assert cancelling == 0


def test_a_cancellation_by_the_runner_stops_the_call() -> None:
    async def main() -> None:
        started = asyncio.Event()

        async def hang() -> Reply:
            started.set()
            await asyncio.sleep(30)
            raise AssertionError("not reached")

        call = asyncio.create_task(bounded(hang, 10))
        await started.wait()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(main())


def test_what_the_target_raises_itself_is_its_failure() -> None:
    async def cancelled() -> Reply:
        raise asyncio.CancelledError

    async def timed_out() -> Reply:
        raise TimeoutError

    async def main() -> list[str]:
        return [_error_class(await bounded(send, 10)) for send in (cancelled, timed_out)]

    assert asyncio.run(main()) == ["exception:CancelledError", "timeout"]


def test_a_reply_that_comes_as_the_deadline_passes_is_kept() -> None:
    async def swallow() -> Reply:
        with contextlib.suppress(asyncio.CancelledError):  # a target that ignores it
            await asyncio.sleep(30)
        return Reply(Answer(fact="f"))

    async def main() -> tuple[Reply, int]:
        reply = await bounded(swallow, 0.02)
        task = asyncio.current_task()
        assert task is not None
        return reply, task.cancelling()

    reply, cancelling = asyncio.run(main())
    assert reply.outcome == Answer(fact="f") and cancelling == 0
