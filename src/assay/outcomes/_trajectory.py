"""An agent's trajectory: the model turns and tool executions behind one case-trial's
outcome, with the state its tools worked on before and after.

A record carries its trajectory in ``extra["trajectory"]`` (as it carries a transcript in
``extra["transcript"]``); ``trajectory_of`` reads it back. The trajectory is what the
agent did; the outcome is what it finally said. Graders that check the path or the final
state read the trajectory, never the outcome's words alone.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.outcomes._record import Record, Usage

TRAJECTORY_KEY = "trajectory"
"""The key of ``Record.extra`` that holds a case-trial's trajectory."""

ToolStatus = Literal["ok", "refused", "error", "malformed", "unknown_tool"]
"""How one tool execution ended:

- ``ok``: the tool returned a result;
- ``refused``: the tool declined the operation (e.g. outside a policy), nothing changed;
- ``error``: the tool raised or its service failed; nothing is known to have happened;
- ``malformed``: the call's arguments were not valid JSON or did not fit the tool;
- ``unknown_tool``: the model called a tool that does not exist.

Every status but ``ok`` is shown to the model as an error message, as agent loops do.
"""

Ending = Literal["answered", "step_limit", "model_error", "timeout"]
"""Why the loop stopped: the model gave a final answer, the step limit was reached, a
model call failed after its retries, or a step ran out of time."""


class ToolCall(BaseModel):
    """One tool call a model asked for: its id, the tool's name and its arguments.

    ``arguments`` is None when the model's arguments were not a JSON object; the text it
    sent is then in ``raw_arguments``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str | None = None
    name: str
    arguments: dict[str, Any] | None = None
    raw_arguments: str | None = None


class ModelStep(BaseModel):
    """A model turn: what it said and the tool calls it asked for (several at once when it
    calls tools in parallel)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["model"] = "model"
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    latency_ms: float | None = None


class ToolStep(BaseModel):
    """One tool execution: the call, how it ended, what it returned or why it failed."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["tool"] = "tool"
    call: ToolCall
    status: ToolStatus
    result: Any = None
    error: str | None = None
    latency_ms: float | None = None

    @property
    def tool(self) -> str:
        """The tool's name."""
        return self.call.name

    @property
    def failed(self) -> bool:
        """True when the tool did not do what was asked (refused, error, malformed or
        unknown)."""
        return self.status != "ok"


Step = Annotated[ModelStep | ToolStep, Field(discriminator="kind")]
"""One step of a trajectory: a ``ModelStep`` or a ``ToolStep``, told apart by ``kind``."""


class Trajectory(BaseModel):
    """What an agent did for one case-trial, in order, and the state around it.

    ``state_before`` is the case's starting state (None when it declares none);
    ``state_after`` the state the tools left (None when the agent keeps no state).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    steps: tuple[Step, ...] = ()
    ended: Ending = "answered"
    state_before: dict[str, Any] | None = None
    state_after: dict[str, Any] | None = None

    @property
    def tool_steps(self) -> tuple[ToolStep, ...]:
        """The tool executions, in order."""
        return tuple(s for s in self.steps if isinstance(s, ToolStep))

    @property
    def model_steps(self) -> tuple[ModelStep, ...]:
        """The model turns, in order."""
        return tuple(s for s in self.steps if isinstance(s, ModelStep))

    @property
    def numbered_tool_steps(self) -> tuple[tuple[int, ToolStep], ...]:
        """Each tool execution with its step number: steps are numbered from 1 in order,
        model turns and tool executions alike, so "step 4" names the same step in a
        check's reason, a trace, a diagnosis and a comparison."""
        return tuple((n, s) for n, s in enumerate(self.steps, 1) if isinstance(s, ToolStep))

    @property
    def model_turn_numbers(self) -> tuple[int, ...]:
        """The step numbers of the model turns (numbered as ``numbered_tool_steps``)."""
        return tuple(n for n, s in enumerate(self.steps, 1) if isinstance(s, ModelStep))

    @property
    def tool_calls(self) -> int:
        """How many tool calls were executed (malformed and unknown ones included)."""
        return len(self.tool_steps)

    @property
    def tool_errors(self) -> int:
        """How many tool executions raised or failed (``error``)."""
        return sum(1 for s in self.tool_steps if s.status == "error")

    @property
    def malformed_calls(self) -> int:
        """How many calls had unreadable arguments or named an unknown tool."""
        return sum(1 for s in self.tool_steps if s.status in ("malformed", "unknown_tool"))


class TrajectoryError(ValueError):
    """A record's ``extra["trajectory"]`` is not a trajectory."""


def trajectory_of(record: Record | None) -> Trajectory | None:
    """The trajectory a record carries, or None when it carries none.

    Raises ``TrajectoryError`` (naming the first bad field) when it carries one that is
    not a valid trajectory.
    """
    if record is None:
        return None
    data = record.extra.get(TRAJECTORY_KEY)
    if data is None:
        return None
    if isinstance(data, Trajectory):
        return data
    try:
        return Trajectory.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise TrajectoryError(f"extra.trajectory.{where}: {first['msg']}") from None


def trajectory_extra(trajectory: Trajectory) -> dict[str, Any]:
    """``trajectory`` as the JSON value a record keeps in ``extra["trajectory"]``."""
    return trajectory.model_dump(mode="json", exclude_none=True)
