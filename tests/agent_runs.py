"""Hand-made agent trajectories and a stored run of them, for the tests of how reports,
trace, the viewer, diagnose and compare show what an agent did."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from assay.cases import Case, Dataset
from assay.grading import Judgment, grade_all
from assay.outcomes import (
    Answer,
    ModelStep,
    Outcome,
    Record,
    ToolCall,
    ToolStatus,
    ToolStep,
    Trajectory,
    trajectory_extra,
)
from assay.report import Report, build_report
from assay.store import RunInfo, open_store

XSS = "<script>alert('tool')</script>"


def call(name: str, step: int, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"c{step}", name=name, arguments=arguments)


def tool(
    name: str,
    step: int,
    status: ToolStatus = "ok",
    result: Any = None,
    error: str | None = None,
    **arguments: Any,
) -> ToolStep:
    return ToolStep(call=call(name, step, **arguments), status=status, result=result, error=error)


def asks(name: str, step: int, **arguments: Any) -> ModelStep:
    return ModelStep(tool_calls=(call(name, step, **arguments),))


def says(text: str) -> ModelStep:
    return ModelStep(text=text, finish_reason="stop")


def refund_failed() -> Trajectory:
    """The refund tool fails and the answer claims the refund was issued."""
    return Trajectory(
        steps=(
            asks("lookup_order", 1, order="o1"),
            tool("lookup_order", 1, result={"order": "o1", "note": XSS}, order="o1"),
            asks("issue_refund", 3, order="o1", amount=30),
            tool("issue_refund", 3, "error", error="payment service unavailable", order="o1",
                 amount=30),
            says("Your refund has been issued."),
        ),
        state_before={"refunded": []},
        state_after={"refunded": []},
    )  # fmt: skip


def refund_done() -> Trajectory:
    """The refund goes through (paid back to the card: the second call's arguments differ
    from ``refund_failed``'s)."""
    return Trajectory(
        steps=(
            asks("lookup_order", 1, order="o1"),
            tool("lookup_order", 1, result={"order": "o1"}, order="o1"),
            asks("issue_refund", 3, order="o1", amount=30, method="card"),
            tool(
                "issue_refund", 3, result={"refunded": "o1"}, order="o1", amount=30, method="card"
            ),
            says("Your refund has been issued."),
        ),
        state_before={"refunded": []},
        state_after={"refunded": ["o1"]},
    )


def looping() -> Trajectory:
    """A malformed call, an unknown tool, then lookups until the step limit."""
    return Trajectory(
        steps=(
            ModelStep(tool_calls=(ToolCall(id="c1", name="lookup_order", raw_arguments="{bad"),)),
            ToolStep(
                call=ToolCall(id="c1", name="lookup_order", raw_arguments="{bad"),
                status="malformed",
                error="arguments are not JSON",
            ),
            asks("find_order", 3, order="o2"),
            tool("find_order", 3, "unknown_tool", error="no tool find_order", order="o2"),
            asks("lookup_order", 5, order="o2"),
            tool("lookup_order", 5, result={"order": "o2"}, order="o2"),
        ),
        ended="step_limit",
    )


CASES = (
    Case(
        id="refund",
        slice="refunds",
        question="Refund order o1",
        expected_behavior="answer",
        expected_fact="refunded",
        expect=(
            {"tool_called": "issue_refund"},
            {"state_equals": {"refunded": ["o1"]}},
        ),
        state={"refunded": []},
    ),
    Case(
        id="status",
        slice="orders",
        question="Where is order o2?",
        expected_behavior="answer",
        expected_fact="shipped",
        expect=({"max_steps": 4},),
    ),
    Case(id="plain", slice="orders", question="Hello?", expected_behavior="abstain"),
)
DATASET = Dataset(name="agents", cases=CASES)


def agent_record(case_id: str, outcome: Outcome, trajectory: Trajectory | None) -> Record:
    extra = {"trajectory": trajectory_extra(trajectory)} if trajectory is not None else {}
    return Record(case_id=case_id, outcome=outcome, extra=extra)


def base_records() -> list[Record]:
    """The refund fails (the answer says otherwise), the lookup loops to the step limit;
    the plain case recorded no trajectory."""
    return [
        agent_record("refund", Answer(fact="refunded", text="Your refund has been issued."),
                     refund_failed()),
        agent_record("status", Answer(fact="unknown"), looping()),
        Record(case_id="plain", outcome=Answer(fact="hi")),
    ]  # fmt: skip


def fixed_records() -> list[Record]:
    """The refund now goes through; the rest as in ``base_records``."""
    return [
        agent_record("refund", Answer(fact="refunded", text="Your refund has been issued."),
                     refund_done()),
        *base_records()[1:],
    ]  # fmt: skip


VERDICTS = {
    "agents-base": {
        "refund": ("failed", "step 4: issue_refund returned error; the answer says it was issued"),
        "status": ("failed", "step limit"),
        "plain": ("failed", "expected an abstention"),
    },
    "agents-fixed": {
        "refund": ("passed", "every check passed"),
        "status": ("failed", "step limit"),
        "plain": ("failed", "expected an abstention"),
    },
}
"""What an agent grader said of each run's case-trials."""


class Verdicts:
    """A grader that says what ``VERDICTS`` holds for a run."""

    name = "agent"
    version = "1"

    def __init__(self, run_id: str) -> None:
        self.said = VERDICTS[run_id]

    def grade(self, case: Case, record: Record) -> Judgment:
        status, reason = self.said[case.id]
        return Judgment(
            case_id=case.id,
            trial=record.trial,
            status=status,  # type: ignore[arg-type]
            reason=reason,
            grader=self.name,
            grader_version=self.version,
        )


def agent_report(run_id: str = "agents-base") -> Report:
    records = base_records() if run_id == "agents-base" else fixed_records()
    graded = grade_all(DATASET, records, Verdicts(run_id))
    return build_report(DATASET, graded, run_id=run_id)


def store_agent_runs(url: str) -> str:
    """Runs ``agents-base`` (``base_records``) and ``agents-fixed`` (``fixed_records``)
    stored at ``url``; returns ``url``."""
    store = open_store(url)
    try:
        for day, (run_id, records) in enumerate(
            (("agents-base", base_records()), ("agents-fixed", fixed_records())), start=1
        ):
            info = RunInfo(
                id=run_id,
                started_at=datetime(2026, 11, day, 9, 30, tzinfo=UTC),
                dataset_name=DATASET.name,
                dataset_version=DATASET.version,
                target={"type": "function", "callable": "agents:run"},
                graders=[{"name": "agent", "version": "1"}],
                assay_version="0.1.0",
            )
            store.create_run(info, DATASET.cases)
            store.add_records(run_id, records)
            grader = Verdicts(run_id)
            store.add_judgments(
                run_id, [grader.grade(c, r) for c, r in zip(CASES, records, strict=True)]
            )
            store.finish_run(run_id, "completed")
    finally:
        store.close()
    return url
