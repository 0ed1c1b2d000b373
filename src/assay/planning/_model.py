"""The plan model: what was asked, the cases each question needs, by which exact method,
under which assumptions, and what the run would cost."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Pilot(BaseModel):
    """What a stored run measured that a plan uses: its rate, how its trials of one case
    agree, and its usage per call."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    run_id: str
    cases: int = Field(description="Real cases with at least one recorded trial")
    trials: int = Field(description="The largest number of recorded trials of a case")
    rate: float = Field(description="Task success over the recorded case-trials")
    design_effect: float | None = Field(
        default=None,
        description="The between-case spread as the clustered interval measures it (several "
        "trials per case only)",
    )
    discordance: float | None = Field(
        default=None,
        description="The share of pairs of trials of one case that disagree (several trials)",
    )
    calls: int = Field(default=0, description="Case-trials that called the target")
    input_tokens_per_call: float | None = None
    output_tokens_per_call: float | None = None
    cost_per_call_usd: float | None = None
    latency_s: float | None = Field(default=None, description="Mean latency of a call")


class Answer(BaseModel):
    """One question answered: the cases (and trials) it needs, or, for a given number of
    cases, the smallest effect it detects."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    question: str = Field(description="rate, drop or noninferiority")
    asked: str = Field(description="The question in words")
    cases: int | None = Field(description="Cases needed (or given); null: out of reach")
    trials: int = 1
    effect: float | None = Field(
        default=None,
        description="The half-width, drop or margin planned for (the smallest one reached, "
        "for a given number of cases); null when none is reached",
    )
    target: float = Field(description="The power, or the half-width, promised")
    achieved: float | None = Field(
        default=None, description="The exact power, or half-width, at these cases"
    )
    achieved_se: float | None = Field(
        default=None,
        description="The Monte Carlo standard error of a simulated power (null when exact)",
    )
    effective_cases: float | None = Field(
        default=None,
        description="With several trials: the observations the clustered interval counts",
    )
    method: str
    reference: str


class Forecast(BaseModel):
    """What running the planned cases would take, from a stored run's usage per call."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    from_run: str
    cases: int
    trials: int
    calls: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    concurrency: int | None = None
    wall_s: float | None = Field(
        default=None, description="calls × mean latency / concurrency (null without both)"
    )


class Plan(BaseModel):
    """How many cases a decision needs: one answer per question, the assumptions behind
    them, and the run's forecast when a stored run gave its usage."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    question: str = Field(description="rate, drop, noninferiority or detectable")
    confidence: float
    interval_method: str
    power: float
    answers: list[Answer]
    assumptions: list[str] = Field(default_factory=list)
    forecast: Forecast | None = None

    @property
    def cases(self) -> int | None:
        """The cases the plan needs: the most any answer needs."""
        needed = [a.cases for a in self.answers if a.cases is not None]
        return max(needed) if needed else None
