"""The report model: one stable, versioned schema that every output format renders."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay._display import Displayed
from assay._fast.shared_fields import CompactModel
from assay._frames import Backend
from assay._json_schema import does_not_apply
from assay.metrics import JudgeNoise, Rate, SliceSummary, StatusCounts, Summary, TrialSummary
from assay.outcomes import Trajectory
from assay.report._agent import AgentCounts, AgentSummary
from assay.report._budget import BudgetSection
from assay.report._correction import JudgeCorrection, UnknownBounds, unknown_bounds
from assay.report._frames import cases_frame, rates_frame
from assay.report._sequential import SequentialSection
from assay.report._usage import JudgeUsage, UsageSummary

SCHEMA_VERSION = 1
SYNTHETIC_BANNER = "SYNTHETIC — NOT A REAL RUN"
HELDOUT_BANNER = "HELD-OUT RESULT"


class DatasetChange(BaseModel):
    """Who changed a dataset version and why (``assay cases changelog``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    who: str
    why: str
    date: str | None = None


class DatasetInfo(BaseModel):
    """The dataset a report was scored on: its name, content-hash version and size."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    version: str
    cases: int
    source_revisions: list[str] = Field(default_factory=list)
    change: DatasetChange | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The changelog entry recorded for this dataset version; omitted when "
        "none was recorded",
    )


class GraderInfo(BaseModel):
    """A grader that produced judgments in the report."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    version: str


class JudgeDetail(CompactModel):
    """What a model judge said about one case-trial beyond its status and reason."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    score: int | None = Field(
        default=None, description="The judge's 0-2 score; null when the reply was rejected"
    )
    labels: list[str] = Field(
        default_factory=list,
        description="Judge model, prompt and rubric versions, usage, rejection class, "
        "optional dimensions (grounded, citations_supported)",
    )


class CaseRow(CompactModel):
    """One case at one trial as reported: labels, outcome, status and the grader's reason."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

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
    abstain_reason: str | None = Field(
        default=None,
        description="Why the outcome is an abstention, when the system said (for a free-text "
        "reply: which abstain rule it matched)",
    )
    status: str
    reason: str
    grader: str
    case_hash: str | None = Field(
        default=None, description="Content hash of the case definition (pairs runs in compare)"
    )
    source_revision: str | None = None
    raw: str | None = Field(
        default=None,
        description="An error's raw reply (e.g. the text that could not be parsed), "
        "truncated visibly when long",
    )
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: float | None = None
    transcript: dict[str, Any] | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="A model target's transcript: the messages sent and the raw reply "
        "(finish_reason, response_model when the server said); omitted when it does not "
        "apply (no transcript recorded)",
    )
    traceback: str | None = Field(
        default=None,
        description="When the target raised: the last frames of its traceback (file:line)",
    )
    judge: JudgeDetail | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="What a model judge said; omitted when it does not apply (no model judge "
        "graded the case)",
    )
    cached_from: str | None = Field(
        default=None,
        description="Served from the response cache: the run that made the reply (its "
        "outcome, latency and usage are that run's); null when the target was called",
    )
    agent: AgentCounts | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="An agent's steps, tool calls, tool errors and malformed calls in this "
        "case-trial (from its trajectory); omitted when it does not apply (no trajectory "
        "recorded)",
    )
    trajectory: Trajectory | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="An agent's trajectory: each model turn and tool execution in order "
        "(arguments, results, errors) and the state before and after; omitted when it does "
        "not apply (none recorded)",
    )

    @property
    def case_id(self) -> str:
        """The case's id (``id``), as a record names it."""
        return self.id


class SyntheticSection(BaseModel):
    """Synthetic cases, summarized apart from real ones and labelled as such."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    banner: str = SYNTHETIC_BANNER
    total: int
    success: int
    statuses: StatusCounts
    task_success: Rate
    case_ids: list[str]


def with_bounds(data: Any) -> Any:
    """The fields of a report (or of a split's block) with its ``unknown_bounds`` derived
    from its figures when it was not given them: whichever path builds the report, its
    bounds are ``unknown_bounds`` of its own counts."""
    if not isinstance(data, dict) or data.get("unknown_bounds") is not None:
        return data
    rate, statuses = data.get("task_success"), data.get("statuses")
    if rate is None or statuses is None:
        return data  # refused by the fields' own validation
    # A report written without ``answered_unknown`` (and without bounds) cannot tell
    # which unknowns answered: its coverage and accuracy get no bounds.
    counted = data.get("answered_unknown")
    found = unknown_bounds(
        Rate.model_validate(rate),
        StatusCounts.model_validate(statuses),
        answer_coverage=_rate_in(data, "answer_coverage"),
        answered_accuracy=_rate_in(data, "answered_accuracy"),
        answered_unknown=counted if isinstance(counted, int) else None,
        slices={
            name: SliceSummary.model_validate(sl) for name, sl in (data.get("slices") or {}).items()
        },
    )
    return data if found is None else {**data, "unknown_bounds": found}


class SplitBlock(BaseModel):
    """The real cases of one split (dev or heldout), with their own denominators."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    split: str
    total: int
    success: int
    statuses: StatusCounts
    task_success: Rate
    answer_coverage: Rate
    answered_accuracy: Rate
    case_ids: list[str] = Field(
        default_factory=list, description="The real cases of this split, in dataset order"
    )
    answered_unknown: int = Field(
        default=0,
        exclude_if=lambda v: v == 0,
        description="Only when some are: the split's substantive answers whose status is "
        "error, missing or ungraded; omitted when it does not apply (none)",
    )
    unknown_bounds: UnknownBounds | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Only when the split has error, missing or ungraded case-trials: its "
        "rates' worst and best case over them, as the report's own; omitted when it does "
        "not apply",
    )

    @model_validator(mode="before")
    @classmethod
    def _bounds(cls, data: Any) -> Any:
        return with_bounds(data)


class HeldoutNote(BaseModel):
    """Marks a result that used held-out cases, and how often that held-out split was run."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    banner: str = HELDOUT_BANNER
    cases: int = Field(description="Held-out cases in this report (real ones)")
    runs: int | None = Field(
        default=None,
        description="Runs of this dataset's held-out split recorded in the store, this one "
        "included; null when not known (a results file)",
    )


class CacheSummary(BaseModel):
    """How many case-trials were served from the response cache, under which key version.

    A served reply keeps the usage recorded when it was first made; its tokens are counted
    here as avoided, not as spent again.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    key_version: int | None = Field(description="The cache key version the run used")
    served: int = Field(description="Recorded case-trials served from the cache")
    case_trials: int = Field(description="Recorded case-trials (served or called)")
    called: int = Field(description="Recorded case-trials that called the target")
    input_tokens_avoided: int = 0
    output_tokens_avoided: int = 0
    judge_served: int = Field(
        default=0,
        description="Judge replies served from the cache (a model judge's verdicts on "
        "recorded case-trials); counted apart from the target's replies",
    )


JUDGE_CACHE_HIT = "judge_cache=hit"
"""The label of a judgment whose judge reply was served from the response cache."""


def _rate_in(data: dict[str, Any], name: str) -> Rate | None:
    found = data.get(name)
    return None if found is None else Rate.model_validate(found)


class Report(BaseModel, Displayed):
    """A scored run or results file: the JSON report schema (``schema_version`` 1).

    Rates are over real cases only; synthetic cases appear in ``synthetic`` and in
    ``cases`` flagged ``synthetic: true``. ``statuses`` always add up to ``total``.
    A block (an object: a section, a row's judge, agent or trajectory) is omitted when it
    does not apply, never written as null; a value that applies but is not known is null.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

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
    answered_unknown: int = Field(
        default=0,
        exclude_if=lambda v: v == 0,
        description="Only when some are: substantive answers whose status is error, missing "
        "or ungraded (the unknowns in answered accuracy's denominator); omitted when it does "
        "not apply (none)",
    )
    statuses: StatusCounts
    task_success: Rate
    answer_coverage: Rate
    answered_accuracy: Rate
    slices: dict[str, SliceSummary]
    graders: list[GraderInfo] = Field(default_factory=list)
    cases: list[CaseRow] = Field(default_factory=list)
    synthetic: SyntheticSection | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The synthetic cases, apart from the real ones; omitted when it does not "
        "apply (no synthetic case)",
    )
    splits: list[SplitBlock] | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Dev and held-out apart, each with its own denominators, when the report "
        "has real cases of both; omitted when it does not apply",
    )
    heldout: HeldoutNote | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="When the report includes held-out cases; omitted when it does not apply",
    )
    metadata: dict[str, Any] = Field(default_factory=dict)
    usage: UsageSummary | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Tokens, latency and cost over the recorded case-trials, with how many "
        "reported each (a run's report always has it); omitted when it does not apply",
    )
    judge_dimensions: dict[str, Rate] = Field(
        default_factory=dict,
        description="With a model judge asked for them: groundedness (grounded) and citation "
        "support (citations_supported), each a Rate over the real case-trials the judge gave "
        "that verdict for; empty otherwise",
    )
    judge_usage: JudgeUsage | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The model judge's own calls and tokens, apart from the target's usage; "
        "omitted when it does not apply (no case-trial was put to a model judge)",
    )
    trial_summary: TrialSummary | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="With more than one trial per case: the trial policy, task success under "
        "it, per-case consistency and flaky cases (intervals clustered by case); omitted "
        "when it does not apply",
    )
    cache: CacheSummary | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="With the response cache on (or cached records): case-trials served "
        "from it, its key version and the tokens avoided; omitted when it does not apply "
        "(no cache)",
    )
    sequential: SequentialSection | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="A run that drew its cases in a seeded random order and stopped once its "
        "sequential gates were decided: the verdict, its guarantee and the cases never drawn; "
        "the report's figures are over the cases drawn. Omitted when it does not apply (a "
        "fixed run)",
    )
    budget: BudgetSection | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="A run given a budget (max_cost, max_calls, max_tokens): its limits, "
        "what it spent and, once the next case-trial could exceed it, the case-trials not "
        "run (not missing; the figures are over the case-trials run). Omitted when it does "
        "not apply (no budget)",
    )
    agent: AgentSummary | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="With case-trials that recorded an agent's trajectory: their steps, tool "
        "calls, tool errors and malformed calls in total and per slice; omitted when it does "
        "not apply (none recorded one)",
    )

    unknown_bounds: UnknownBounds | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Only when task success's denominator holds error, missing or ungraded "
        "case-trials: its worst case (all of them counted failed) and best case (all counted "
        "passed), each with its interval, and the same for every other headline rate and "
        "slice whose denominator holds some; omitted when it does not apply",
    )
    judge_correction: JudgeCorrection | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Only for a run judged by a model judge when its calibration was looked "
        "for: task success as the judge gave it beside the rate corrected for the judge's "
        "measured errors, or why no correction is made; omitted when it does not apply",
    )
    judge_noise: JudgeNoise | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Only for a run whose model judge was asked several times about each "
        "recorded answer: the judge's own instability (the same answer, different verdicts "
        "across the repeats) apart from the system's (a case's trials, different majority "
        "verdicts), and the judge-unstable case-trials; omitted when it does not apply",
    )

    @model_validator(mode="before")
    @classmethod
    def _bounds(cls, data: Any) -> Any:
        return with_bounds(data)

    @classmethod
    def from_summary(cls, summary: Summary, **fields: Any) -> Report:
        """A report carrying ``summary``'s figures plus the given fields."""
        figures = summary.model_dump(exclude={"synthetic"})
        return cls(**figures, **fields)

    def cases_frame(self, backend: Backend = "pandas") -> Any:
        """One row per case-trial: id, slice, trial, status, reason, answer, usage and
        latency (the columns and dtypes: docs/notebooks.md), as a pandas or polars
        DataFrame; each backend is an optional extra (``pip install 'assay[pandas]'``)."""
        return cases_frame(self, backend)

    def rates_frame(self, backend: Backend = "pandas") -> Any:
        """One row per rate and slice, with numerator, denominator, value, interval bounds
        and method (docs/notebooks.md), as a pandas or polars DataFrame."""
        return rates_frame(self, backend)
