"""Whatever order calls finish in and however they fail, the executor emits every
case-trial exactly once, in dataset order, with a bounded number of attempts."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case
from assay.grading import StructuredGrader
from assay.outcomes import Abstain, Answer, Error
from assay.runner import Done, Execution, RunOptions, Timing, WorkItem, execute
from assay.targets import BaseTarget, Reply, TargetContext

BEHAVIOURS = st.sampled_from(["answer", "abstain", "http_429", "http_5xx", "raise", "parse"])


class Shuffled(BaseTarget):
    """A target whose calls yield a chosen number of times (so they finish in any order)
    and then answer, fail or raise as scripted per case."""

    name = "shuffled"

    def __init__(self, plan: dict[str, tuple[int, str]]) -> None:
        self.plan = plan

    def config(self) -> dict[str, str]:
        return {"type": "shuffled"}

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        yields, behaviour = self.plan[case.id]
        for _ in range(yields + ctx.attempt):
            await asyncio.sleep(0)
        if behaviour == "raise":
            raise ValueError("boom")
        if behaviour in ("http_429", "http_5xx", "parse"):
            return Reply(Error(error_class=behaviour, message="scripted"))
        if behaviour == "abstain":
            return Reply(Abstain())
        return Reply(Answer(fact="f"))


async def _no_wait(_seconds: float) -> None:
    await asyncio.sleep(0)


@settings(max_examples=60, deadline=None)
@given(
    plan=st.lists(st.tuples(st.integers(0, 20), BEHAVIOURS), min_size=1, max_size=25),
    trials=st.integers(1, 3),
    concurrency=st.integers(1, 12),
    retries=st.integers(0, 3),
)
def test_every_case_trial_once_in_order_with_bounded_attempts(
    plan: list[tuple[int, str]], trials: int, concurrency: int, retries: int
) -> None:
    cases = [
        Case(id=f"C{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in range(len(plan))
    ]
    target = Shuffled({c.id: p for c, p in zip(cases, plan, strict=True)})
    options = RunOptions(concurrency=concurrency, retries=retries)
    ex = Execution(target, options, StructuredGrader(), "r", timing=Timing(sleep=_no_wait))
    pairs = [(c, t) for c in cases for t in range(1, trials + 1)]
    items = [WorkItem(i, c, t) for i, (c, t) in enumerate(pairs)]
    emitted: list[Done] = []
    leftovers = asyncio.run(execute(ex, items, emitted.append))

    assert leftovers == []
    assert [d.record.key for d in emitted] == [(c.id, t) for c, t in pairs]
    for done, (_, behaviour) in zip(emitted, [p for p in plan for _ in range(trials)], strict=True):
        record = done.record
        assert 1 <= record.attempts <= retries + 1
        if behaviour in ("http_429", "http_5xx"):
            assert record.attempts == retries + 1
            assert isinstance(record.outcome, Error) and record.outcome.error_class == behaviour
        else:
            assert record.attempts == 1
        assert done.judgment is not None
        if isinstance(record.outcome, Error):  # judged without asking the grader
            assert (done.judgment.status, done.judgment.grader) == ("error", "assay")
        else:
            assert done.judgment.status == ("passed" if behaviour == "answer" else "failed")
