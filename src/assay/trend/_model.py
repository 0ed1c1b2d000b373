"""The trend model: one suite's runs over time, what ``assay trend`` reports in every format."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay._display import Displayed
from assay._json_schema import does_not_apply, model_schema
from assay.metrics import Rate

TREND_SCHEMA_VERSION = 1

MetricKind = Literal["rate", "seconds", "usd"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class DatasetChange(_Frozen):
    """How the cases changed between two runs on different dataset versions."""

    added: int = Field(description="Cases only in the later run")
    removed: int = Field(description="Cases only in the earlier run")
    changed: int = Field(description="Cases in both whose definition or source changed")
    unchanged: int


class Change(_Frozen):
    """From the previous run of the series to this one.

    ``paired`` is true only when both ran the same dataset version with identical case
    definitions; then ``fixed``/``broken`` count the discordant pairs of the metric's
    indicator and ``p_value`` is the exact McNemar test on them. Otherwise ``break_reason``
    says why the runs were not paired (and ``dataset_change`` summarises the cases).
    ``flagged`` is the documented rule: paired, ``p_value`` below ``alpha``, and the
    change larger than the run-to-run ``spread`` observed before it (when measured).
    """

    previous: str = Field(description="The previous run's id")
    paired: bool
    break_reason: str | None = None
    dataset_change: DatasetChange | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="How the cases changed between the two dataset versions; omitted when it "
        "does not apply (the same version)",
    )
    config_changed: bool
    pairs: int = 0
    unit: Literal["case-trials", "cases"] = "case-trials"
    fixed: int | None = None
    broken: int | None = None
    p_value: float | None = None
    delta: float | None = Field(description="This run's value minus the previous run's")
    spread: float | None = Field(
        default=None,
        description="Run-to-run spread (max - min) of the previous run's configuration on "
        "its dataset version, over the runs up to it; null when fewer than two",
    )
    spread_runs: int = Field(default=0, description="How many runs the spread is measured on")
    flagged: bool = False
    verdict: str = Field(description="The change in plain words")


class Point(_Frozen):
    """One run of the suite and the metric's value in it."""

    run_id: str
    started_at: str = Field(description="ISO 8601 UTC")
    status: str
    dataset_name: str
    dataset_version: str
    config_hash: str = Field(description="Hash of the target, graders, trials and metadata")
    git_commit: str | None = None
    tags: list[str] = Field(default_factory=list)
    value: float | None = Field(description="The metric's value; null (n/a) with na_reason")
    rate: Rate | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The rate, for rate metrics; omitted when it does not apply",
    )
    low: float | None = Field(default=None, description="Interval low bound (rates)")
    high: float | None = Field(default=None, description="Interval high bound (rates)")
    shown: str = Field(description="The value as text, with its fraction and interval")
    na_reason: str | None = None
    replicates: int = Field(
        description="How many runs of the series share this run's dataset version and "
        "configuration (repeated runs of an unchanged configuration)"
    )
    change: Change | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="From the previous run; omitted when it does not apply (the first run)",
    )


class ReplicateGroup(_Frozen):
    """Runs of one configuration on one dataset version: their spread is the noise."""

    dataset_version: str
    config_hash: str
    runs: list[str]
    low: float | None = Field(description="Lowest value among the runs (null: none known)")
    high: float | None = None
    spread: float | None = Field(description="high - low; null with fewer than two values")


class Trend(_Frozen, Displayed):
    """A suite's runs in time order with one metric, its changes and its noise."""

    schema_version: int = TREND_SCHEMA_VERSION
    assay_version: str
    suite: str
    metric: str
    kind: MetricKind
    denominator_name: str | None = Field(default=None, description="For rate metrics")
    confidence: float = 0.95
    method: str = "clopper-pearson"
    alpha: float = Field(description="Significance level of the McNemar test: 1 - confidence")
    since: str | None = Field(default=None, description="Earliest start time shown (ISO)")
    points: list[Point]
    groups: list[ReplicateGroup] = Field(
        default_factory=list, description="Configurations run more than once on one version"
    )
    rule: str = Field(description="How a change is flagged, in words")
    summary: str = Field(description="The latest change in plain words")


def trend_schema() -> dict[str, Any]:
    """The JSON Schema of ``assay trend --format json`` (docs/trend.schema.json)."""
    return model_schema(Trend, name="trend", version=TREND_SCHEMA_VERSION)
