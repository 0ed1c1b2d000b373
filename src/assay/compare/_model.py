"""The comparison model: what ``assay compare`` reports, in every format (schema version 1)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay._display import Displayed
from assay._json_schema import does_not_apply, model_schema
from assay.compare._divergence import Divergence
from assay.metrics import FormerCi95, Rate

COMPARE_SCHEMA_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class RunRef(_Frozen):
    """One side of a comparison: where it came from and its task success on the paired set."""

    ref: str = Field(description="What the user named: a run id or a report file")
    run_id: str | None = None
    dataset_name: str
    dataset_version: str
    trials: int = 1
    task_success: Rate = Field(description="Passing case-trials / paired case-trials")
    config: dict[str, Any] = Field(default_factory=dict)


class SideOutcome(_Frozen):
    """One run's result for a paired case-trial."""

    status: str
    outcome: str | None = None
    fact: str | None = None
    reason: str = ""


class ChangedCase(_Frozen):
    """A paired case-trial whose status changed, with both runs' outcomes and reasons."""

    id: str
    trial: int = 1
    slice: str
    baseline: SideOutcome
    candidate: SideOutcome
    divergence: Divergence | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="For an agent's case: the first tool call (name and arguments) at which "
        "the two runs' trajectories differ, and what each did there; omitted when it does "
        "not apply (the same calls, or either recorded no trajectory)",
    )


class Moved(_Frozen):
    """A case-trial whose status moved between error/missing/ungraded and another status."""

    id: str
    trial: int = 1
    slice: str = ""
    from_: str = Field(alias="from", serialization_alias="from")
    to: str

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)


class Excluded(_Frozen):
    """A case (or case-trial) left out of the comparison, and why."""

    id: str
    trial: int | None = None
    reason: str


class McNemar(_Frozen):
    """The exact McNemar test on task success's discordant pairs.

    ``fixed`` counts pairs that did not pass in the baseline and passed in the candidate,
    ``broken`` the reverse (so an error that became a pass is counted here, and listed under
    ``moved``). With several trials per case the unit is the case: ``fixed`` counts cases
    with more passing trials in the candidate (the exact sign test).
    """

    fixed: int
    broken: int
    p_value: float
    unit: Literal["case-trials", "cases"] = "case-trials"


class Delta(_Frozen, FormerCi95):
    """Candidate minus baseline task success over the paired set, with its interval."""

    value: float | None
    ci: tuple[float, float] | None
    confidence: float = 0.95
    method: str = Field(description="How the interval was computed (with its reference)")


class SliceDelta(_Frozen):
    """One slice's paired figures."""

    slice: str
    paired: int
    fixed: int
    broken: int
    baseline: Rate
    candidate: Rate
    delta: Delta


class WorstCase(_Frozen):
    """The verdict on task success recomputed with the paired case-trials that are error,
    missing or ungraded counted against the candidate: its own failed, the baseline's
    passed (the direction that undoes a "candidate is better" verdict)."""

    unknown_baseline: int = Field(description="The baseline's unknown paired case-trials")
    unknown_candidate: int = Field(description="The candidate's unknown paired case-trials")
    mcnemar: McNemar
    delta: Delta
    verdict: str = Field(description="The verdict in the worst case, as the summary words it")
    survives: bool = Field(description="The verdict is the same in the worst case")
    summary: str = Field(description="Whether the verdict survives, in plain words")


class NonInferiority(_Frozen):
    """Whether the candidate is not worse than the baseline by more than ``margin``: the
    paired interval of the task-success difference (candidate minus baseline) lies wholly
    above ``-margin``."""

    margin: float = Field(description="The margin, a difference of rates (0.02: 2 points)")
    confidence: float
    ci: tuple[float, float] | None = Field(description="The paired interval of the difference")
    verdict: Literal["not worse", "worse", "undecided"] | None = Field(
        description="not worse (the interval lies above -margin), worse (below it), "
        "undecided (it reaches across); null with no paired cases"
    )
    passed: bool = Field(description="True only when not worse")
    summary: str = Field(description="The verdict in plain words, with the interval")


class ConfigChange(_Frozen):
    """One configuration value that differs between the runs (null when absent)."""

    key: str
    baseline: Any = None
    candidate: Any = None


class UsageSide(_Frozen):
    """One run's usage figures, over the whole run (see the report's usage section)."""

    case_trials: int
    usage_reported: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_p95_s: float | None = None
    cached: int = Field(default=0, description="Case-trials served from the response cache")
    cost_avoided_usd: float | None = Field(
        default=None, description="Cost of the served replies, avoided by the cache"
    )


class UsageComparison(_Frozen):
    """Both runs' usage and cost, and candidate minus baseline for each figure (null when
    either run lacks it: unknown usage is never taken as 0)."""

    baseline: UsageSide
    candidate: UsageSide
    input_tokens_delta: int | None = None
    output_tokens_delta: int | None = None
    cost_usd_delta: float | None = None
    latency_p95_s_delta: float | None = None
    cost_avoided_usd_delta: float | None = None


class Comparison(_Frozen, Displayed):
    """A paired comparison of a baseline and a candidate run (``schema_version`` 1).

    Every paired case-trial is counted exactly once in ``newly_fixed``, ``newly_broken``,
    ``unchanged`` or ``moved``; ``paired`` is their total. ``excluded`` lists what was left
    out (only with ``matching_only``) and why.
    """

    schema_version: int = COMPARE_SCHEMA_VERSION
    assay_version: str
    baseline: RunRef
    candidate: RunRef
    paired: int
    paired_trials: list[int] = Field(
        default_factory=list, description="The trial numbers the paired case-trials have"
    )
    excluded: list[Excluded] = Field(default_factory=list)
    newly_fixed: list[str] = Field(description="Ids of cases that went failed -> passed")
    newly_broken: list[str] = Field(description="Ids of cases that went passed -> failed")
    moved: list[Moved] = Field(default_factory=list)
    fixed: list[ChangedCase] = Field(default_factory=list)
    broken: list[ChangedCase] = Field(default_factory=list)
    unchanged: dict[str, int] = Field(
        default_factory=dict,
        description="Counts of paired case-trials with the same status in both runs",
    )
    mcnemar: McNemar
    task_success_delta: Delta
    slices: list[SliceDelta] = Field(default_factory=list)
    config_diff: list[ConfigChange] = Field(default_factory=list)
    usage: UsageComparison | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Tokens, latency and cost of both whole runs, and the deltas; omitted "
        "when it does not apply (neither run has usage)",
    )
    summary: str = Field(description="The result in plain words")
    worst_case: WorstCase | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The verdict with the candidate's unknown paired case-trials counted "
        "failed and the baseline's passed, and whether it survives; omitted when it does not "
        "apply (no pairs)",
    )
    non_inferiority: NonInferiority | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="With --margin: whether the candidate is not worse than the baseline by "
        "more than the margin; omitted when it does not apply (no margin)",
    )


def comparison_schema() -> dict[str, Any]:
    """The JSON Schema of ``assay compare --format json`` (docs/compare.schema.json)."""
    return model_schema(Comparison, name="compare", version=COMPARE_SCHEMA_VERSION)
