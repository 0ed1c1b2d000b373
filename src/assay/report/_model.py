"""The report model: one stable, versioned schema that every output format renders."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.metrics import Rate, SliceSummary, StatusCounts, Summary, TrialSummary

SCHEMA_VERSION = 1
SYNTHETIC_BANNER = "SYNTHETIC — NOT A REAL RUN"


class DatasetInfo(BaseModel):
    """The dataset a report was scored on: its name, content-hash version and size."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: str
    cases: int
    source_revisions: list[str] = Field(default_factory=list)


class GraderInfo(BaseModel):
    """A grader that produced judgments in the report."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: str


class CaseRow(BaseModel):
    """One case at one trial as reported: labels, outcome, status and the grader's reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    slice: str
    trial: int = 1
    synthetic: bool = False
    question: str = ""
    expected_behavior: str
    expected_fact: str | None = None
    rationale: str | None = None
    outcome: str | None = Field(description="answer, abstain or error; null when missing")
    fact: str | None = None
    text: str | None = None
    status: str
    reason: str
    grader: str
    case_hash: str | None = Field(
        default=None, description="Content hash of the case definition (pairs runs in compare)"
    )
    source_revision: str | None = None
    cached_from: str | None = Field(
        default=None,
        description="Served from the response cache: the run that made the reply (its "
        "outcome, latency and usage are that run's); null when the target was called",
    )


class SyntheticSection(BaseModel):
    """Synthetic cases, summarized apart from real ones and labelled as such."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    banner: str = SYNTHETIC_BANNER
    total: int
    success: int
    statuses: StatusCounts
    task_success: Rate
    case_ids: list[str]


class CacheSummary(BaseModel):
    """How many case-trials were served from the response cache, under which key version.

    A served reply keeps the usage recorded when it was first made; its tokens are counted
    here as avoided, not as spent again.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    key_version: int | None = Field(description="The cache key version the run used")
    served: int = Field(description="Recorded case-trials served from the cache")
    case_trials: int = Field(description="Recorded case-trials (served or called)")
    called: int = Field(description="Recorded case-trials that called the target")
    input_tokens_avoided: int = 0
    output_tokens_avoided: int = 0


class Report(BaseModel):
    """A scored run or results file: the JSON report schema (``schema_version`` 1).

    Rates are over real cases only; synthetic cases appear in ``synthetic`` and in
    ``cases`` flagged ``synthetic: true``. ``statuses`` always add up to ``total``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = SCHEMA_VERSION
    assay_version: str
    run_id: str | None = None
    dataset: DatasetInfo
    trials: int = 1
    total: int
    success: int
    answered: int
    correct_answers: int
    errors: int
    missing: int
    ungraded: int
    statuses: StatusCounts
    task_success: Rate
    answer_coverage: Rate
    answered_accuracy: Rate
    slices: dict[str, SliceSummary]
    graders: list[GraderInfo] = Field(default_factory=list)
    cases: list[CaseRow] = Field(default_factory=list)
    synthetic: SyntheticSection | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    trial_summary: TrialSummary | None = Field(
        default=None,
        description="With more than one trial per case: the trial policy, task success under "
        "it, per-case consistency and flaky cases (intervals clustered by case)",
    )
    cache: CacheSummary | None = Field(
        default=None,
        description="With the response cache on (or cached records): case-trials served "
        "from it, its key version and the tokens avoided; null without a cache",
    )

    @classmethod
    def from_summary(cls, summary: Summary, **fields: Any) -> Report:
        """A report carrying ``summary``'s figures plus the given fields."""
        figures = summary.model_dump(exclude={"synthetic"})
        return cls(**figures, **fields)
