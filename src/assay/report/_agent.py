"""What agents did in a run: steps, tool calls, tool errors and malformed calls, for each
case-trial that recorded a trajectory and over the run (and each slice).

``agent_counts`` is the one count of a trajectory; every format reads its result (a case
row's ``agent``, the report's ``agent`` section).
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from assay._fast.shared_fields import CompactModel
from assay.errors import AssayInputError
from assay.outcomes import Ending, Record, Trajectory, TrajectoryError, trajectory_of


class AgentCounts(CompactModel):
    """What an agent did in one case-trial, from its trajectory."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    steps: int = Field(description="Model turns and tool executions")
    tool_calls: int = Field(description="Tool executions (malformed and unknown ones included)")
    tool_errors: int = Field(description="Tool executions that raised or failed (error)")
    malformed_calls: int = Field(
        description="Calls whose arguments could not be read or that named an unknown tool"
    )
    ended: Ending = Field(
        default="answered",
        description="Why the loop stopped: answered, step_limit, model_error or timeout",
    )


class AgentTotals(BaseModel):
    """The counts of several case-trials' trajectories, added up."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_trials: int = Field(description="Case-trials that recorded a trajectory")
    steps: int
    tool_calls: int
    tool_errors: int
    malformed_calls: int
    step_limit: int = Field(
        default=0, description="Of those case-trials, how many stopped at the step limit"
    )


class AgentSummary(AgentTotals):
    """The counts over every case-trial that recorded a trajectory (synthetic cases
    included, as usage is), and per slice."""

    slices: dict[str, AgentTotals] = Field(
        default_factory=dict, description="The same counts over each slice's case-trials"
    )


def agent_counts(trajectory: Trajectory) -> AgentCounts:
    """The counts of one trajectory."""
    return AgentCounts(
        steps=len(trajectory.steps),
        tool_calls=trajectory.tool_calls,
        tool_errors=trajectory.tool_errors,
        malformed_calls=trajectory.malformed_calls,
        ended=trajectory.ended,
    )


def checked_trajectory(record: Record | None) -> Trajectory | None:
    """``trajectory_of(record)``; a trajectory that is not one is refused naming the
    case-trial and the field (``AssayInputError``)."""
    try:
        return trajectory_of(record)
    except TrajectoryError as err:
        assert record is not None  # only a record carries a trajectory
        raise AssayInputError(
            f"case {record.case_id!r} trial {record.trial}: {err} (the record's trajectory "
            "is not one: it was changed outside assay or written by a faulty target)"
        ) from None


def counts_of(record: Record | None) -> AgentCounts | None:
    """The counts of the trajectory ``record`` carries; None when it carries none."""
    trajectory = checked_trajectory(record)
    return agent_counts(trajectory) if trajectory is not None else None


def _added(counts: list[AgentCounts]) -> AgentTotals:
    return AgentTotals(
        case_trials=len(counts),
        steps=sum(c.steps for c in counts),
        tool_calls=sum(c.tool_calls for c in counts),
        tool_errors=sum(c.tool_errors for c in counts),
        malformed_calls=sum(c.malformed_calls for c in counts),
        step_limit=sum(1 for c in counts if c.ended == "step_limit"),
    )


def agent_summary(counted: Iterable[tuple[str, AgentCounts | None]]) -> AgentSummary | None:
    """The run's section from each case-trial's (slice, counts); None when no case-trial
    recorded a trajectory."""
    by_slice: dict[str, list[AgentCounts]] = {}
    for slice_name, counts in counted:
        if counts is not None:
            by_slice.setdefault(slice_name, []).append(counts)
    if not by_slice:
        return None
    every = [c for part in by_slice.values() for c in part]
    return AgentSummary(
        **_added(every).model_dump(),
        slices={name: _added(by_slice[name]) for name in sorted(by_slice)},
    )
