"""Where two trajectories part: the first tool call whose (name, arguments) differs."""

from __future__ import annotations

from tests.agent_runs import asks, says, tool

from assay.compare import Divergence, divergence, divergence_text
from assay.outcomes import ToolCall, ToolStep, Trajectory


def _run(*calls: tuple[str, dict[str, object]]) -> Trajectory:
    steps = []
    for i, (name, args) in enumerate(calls):
        steps += [asks(name, 2 * i + 1, **args), tool(name, 2 * i + 1, **args)]
    return Trajectory(steps=(*steps, says("done")))


def test_the_same_calls_do_not_diverge_whatever_the_results_or_words() -> None:
    a = _run(("lookup", {"id": 1}), ("refund", {"id": 1}))
    b = Trajectory(steps=(*a.steps[:3], tool("refund", 3, "error", id=1), says("sorry")))
    assert divergence(a, b) is None
    assert divergence(a, a) is None


def test_differing_at_the_first_call() -> None:
    found = divergence(_run(("lookup", {"id": 1})), _run(("cancel", {"id": 1})))
    assert isinstance(found, Divergence) and found.call == 1
    assert found.baseline is not None and found.baseline.tool == "lookup"
    assert found.candidate is not None and found.candidate.tool == "cancel"
    assert found.baseline.step == found.candidate.step == 2


def test_one_a_prefix_of_the_other() -> None:
    short, long = _run(("lookup", {"id": 1})), _run(("lookup", {"id": 1}), ("refund", {"id": 1}))
    found = divergence(short, long)
    assert found is not None and found.call == 2
    assert found.baseline is None and found.candidate is not None
    assert found.candidate.tool == "refund" and found.candidate.step == 4
    reverse = divergence(long, short)
    assert reverse is not None and reverse.candidate is None
    assert "candidate made no further call" in divergence_text(reverse)


def test_differing_arguments_alone() -> None:
    found = divergence(
        _run(("lookup", {"id": 1}), ("refund", {"id": 1, "amount": 5})),
        _run(("lookup", {"id": 1}), ("refund", {"id": 1, "amount": 50})),
    )
    assert found is not None and found.call == 2
    assert found.baseline is not None and found.baseline.arguments == {"id": 1, "amount": 5}
    assert found.candidate is not None and found.candidate.arguments == {"id": 1, "amount": 50}
    assert divergence_text(found) == (
        'call 2: baseline step 4 refund {"amount": 5, "id": 1} (ok); '
        'candidate step 4 refund {"amount": 50, "id": 1} (ok)'
    )


def test_unreadable_arguments_compare_by_their_text() -> None:
    def raw(text: str) -> Trajectory:
        call = ToolCall(name="lookup", raw_arguments=text)
        return Trajectory(steps=(ToolStep(call=call, status="malformed"),))

    assert divergence(raw("{x"), raw("{x")) is None
    found = divergence(raw("{x"), raw("{y"))
    assert found is not None and found.baseline is not None
    assert found.baseline.raw_arguments == "{x"


def test_no_trajectory_on_either_side_tells_nothing() -> None:
    assert divergence(None, _run(("lookup", {}))) is None
    assert divergence(_run(("lookup", {})), None) is None
