"""A finding: the stage a failed case implicates, the evidence, and what to inspect next."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from assay._display import Displayed

Stage = Literal["retrieval", "context_assembly", "generation", "access_boundary", "tool_handling"]
STAGES: tuple[Stage, ...] = (
    "retrieval",
    "context_assembly",
    "generation",
    "access_boundary",
    "tool_handling",
)


class Finding(BaseModel, Displayed):
    """What ``diagnose`` concluded about one case-trial.

    ``stage`` is None when the case passed or when the spans cannot tell; ``evidence``
    lists the observations the conclusion rests on, each readable on its own; ``step`` is
    the step of an agent's trajectory behind the failure (numbered from 1), when a rule
    names one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case: str
    trial: int = 1
    status: str
    stage: Stage | None
    evidence: tuple[str, ...]
    next_step: str
    rule: str
    step: int | None = None

    def contract(self) -> dict[str, object]:
        """The documented JSON form: case, status, stage, evidence, next_step, and step
        when an agent's rule names the step of its trajectory behind the failure."""
        found: dict[str, object] = {
            "case": self.case,
            "status": self.status,
            "stage": self.stage,
            "evidence": list(self.evidence),
            "next_step": self.next_step,
        }
        if self.step is not None:
            found["step"] = self.step
        return found


def group_by_stage(findings: list[Finding]) -> dict[Stage | None, list[Finding]]:
    """Failed findings grouped by implicated stage, stages in pipeline order, None last."""
    groups: dict[Stage | None, list[Finding]] = {}
    for stage in (*STAGES, None):
        members = [f for f in findings if f.stage == stage and f.status != "passed"]
        if members:
            groups[stage] = members
    return groups
