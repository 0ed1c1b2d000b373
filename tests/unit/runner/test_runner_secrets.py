"""The runner masks a target's secrets in every reply it records, whatever the target
did: an exception that quotes the key is recorded with the key masked."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from assay.cases import Case
from assay.grading import StructuredGrader
from assay.outcomes import Answer, Error
from assay.runner._execute import Done, Execution, WorkItem, execute
from assay.runner._options import RunOptions
from assay.targets import BaseTarget, Reply, TargetContext

KEY = "sk-runner/Secret+Key_0199"


class Leaky(BaseTarget):
    """A target that sends a key and leaks it in every way it can."""

    name = "leaky"

    def config(self) -> dict[str, Any]:
        return {"type": "leaky"}

    def secrets(self) -> tuple[str, ...]:
        return (f"Bearer {KEY}",)

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        if case.id == "raise":
            raise RuntimeError(f"request failed with headers {{'Authorization': 'Bearer {KEY}'}}")
        if case.id == "exit":
            raise SystemExit(f"bad token {KEY}")
        encoded = base64.b64encode(KEY.encode()).decode()
        return Reply(Answer(fact="f", text=f"token {encoded}"), extra={"echo": KEY})


def test_every_reply_is_masked_by_the_runner_whatever_the_target_did() -> None:
    cases = [
        Case(id=i, slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in ("raise", "exit", "answer")
    ]
    items = [WorkItem(n, case, 1) for n, case in enumerate(cases)]
    ex = Execution(Leaky(), RunOptions(retries=0), StructuredGrader(), "r1")
    emitted: list[Done] = []
    asyncio.run(execute(ex, items, emitted.append))
    assert [d.record.case_id for d in emitted] == ["raise", "exit", "answer"]
    for done in emitted:
        stored = done.record.model_dump_json()
        assert "sk-runner" not in stored and "<redacted>" in stored, stored
    first, second, _ = (d.record.outcome for d in emitted)
    assert isinstance(first, Error) and first.error_class == "exception:RuntimeError"
    assert isinstance(second, Error) and second.error_class == "exception:SystemExit"
