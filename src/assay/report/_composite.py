"""The composite report: per-case composite and strict verdicts, pass rates over real
cases, per-check failure counts, diverging cases, and synthetic cases apart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay._frames import Backend
from assay._json_schema import does_not_apply, model_schema
from assay._version import __version__
from assay.cases import Dataset
from assay.grading import CaseResult
from assay.grading.checks import CheckResult, Profile
from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalSetting,
    Rate,
    StatusCounts,
    clustered_by_case,
    rate,
)
from assay.report._frames import composite_cases_frame
from assay.report._model import SCHEMA_VERSION, SYNTHETIC_BANNER, DatasetInfo

COMPOSITE_PASSES = "composite passes"
STRICT_PASSES = "strict passes"
InputKind = Literal["recorded checks", "free-text answers", "mixed"]


class ProfileInfo(BaseModel):
    """The profile a composite report was scored with."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    weights: dict[str, float]
    critical: list[str]
    threshold: float


class CompositeCaseRow(BaseModel):
    """One case-trial: status, score (null unless graded), verdicts, and every check.

    ``verdict`` and ``strict_verdict`` are pass, fail or ungraded; an error or missing
    outcome is a fail with ``status`` error or missing and no checks.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    trial: int = 1
    slice: str
    synthetic: bool = False
    status: str
    score: float | None = Field(
        description="Sum of the weights of the passed checks, a number (0 to 1); null "
        "when the case is ungraded, an error or missing (never a default score)"
    )
    critical_failures: list[str]
    verdict: Literal["pass", "fail", "ungraded"]
    strict_verdict: Literal["pass", "fail", "ungraded"]
    checks: dict[str, CheckResult]
    reason: str
    provenance: dict[str, Any] | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Where a generated case came from; omitted when it does not apply",
    )
    question: str = Field(default="", description="The case's question, in full")
    answer: str | None = Field(
        default=None,
        description="The answer text the target gave, in full; null when the outcome has "
        "no text (an abstention, an error, nothing recorded, recorded checks only)",
    )

    @property
    def case_id(self) -> str:
        """The case's id (``id``), as a record names it."""
        return self.id

    @property
    def label(self) -> str:
        return self.id if self.trial == 1 else f"{self.id}#{self.trial}"


class CheckFailures(BaseModel):
    """How often one check failed, and could not be evaluated, over real case-trials."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    failed: int
    not_evaluated: int
    weight: float
    critical: bool


class CompositeSynthetic(BaseModel):
    """Synthetic cases, scored the same way and never counted in the real figures."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    banner: str = SYNTHETIC_BANNER
    case_ids: list[str]
    composite_pass: Rate
    strict_pass: Rate
    diverging: list[str]


class CompositeReport(BaseModel):
    """``assay composite``'s JSON schema; every other format renders it.

    Rates and counts are over real cases only; synthetic cases appear in ``cases`` flagged
    ``synthetic: true`` and are summarized in ``synthetic``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    schema_version: int = SCHEMA_VERSION
    report: Literal["composite"] = "composite"
    assay_version: str = __version__
    dataset: DatasetInfo
    sources_version: str | None = None
    input: InputKind
    trials: int = 1
    profile: ProfileInfo
    cases: list[CompositeCaseRow]
    total: int
    statuses: StatusCounts
    composite_pass: Rate
    strict_pass: Rate
    check_failures: dict[str, CheckFailures]
    diverging: list[str]
    agreement: str | None = None
    synthetic: CompositeSynthetic | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The synthetic cases, apart from the real ones; omitted when it does not "
        "apply (no synthetic case)",
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    def cases_frame(self, backend: Backend = "pandas") -> Any:
        """One row per case-trial with its score, verdicts and a ``check:NAME`` column per
        check (docs/notebooks.md), as a pandas or polars DataFrame."""
        return composite_cases_frame(self, backend)


def composite_schema() -> dict[str, Any]:
    """The JSON Schema of ``assay composite --format json`` (docs/composite.schema.json)."""
    return model_schema(CompositeReport, name="composite", version=SCHEMA_VERSION)


def _answer_text(item: CaseResult) -> str | None:
    text = getattr(item.record.outcome, "text", None) if item.record is not None else None
    return text if isinstance(text, str) else None


def _row(item: CaseResult) -> CompositeCaseRow:
    case, result = item.case, item.composite
    provenance = case.provenance.model_dump(mode="json") if case.provenance else None
    common = {
        "id": case.id,
        "trial": item.trial,
        "slice": case.slice,
        "synthetic": case.synthetic,
        "status": item.status,
        "reason": item.reason,
        "provenance": provenance,
        "question": case.question,
        "answer": _answer_text(item),
    }
    if result is None:
        return CompositeCaseRow(
            **common,
            score=None,
            critical_failures=[],
            verdict="fail",
            strict_verdict="fail",
            checks={},
        )
    return CompositeCaseRow(
        **common,
        score=result.score,
        critical_failures=list(result.critical_failures),
        verdict=result.verdict,
        strict_verdict=result.strict_verdict,
        checks=dict(result.checks),
    )


def _counts(rows: Sequence[CompositeCaseRow]) -> StatusCounts:
    tally = {"passed": 0, "failed": 0, "error": 0, "missing": 0, "ungraded": 0}
    for row in rows:
        tally[row.status] += 1
    return StatusCounts(**tally)


def _agreement(rows: Sequence[CompositeCaseRow], unit: str) -> str | None:
    """The plain sentence for real cases whose two verdicts all agree (None otherwise)."""
    if not rows or any(r.verdict != r.strict_verdict for r in rows):
        return None
    failed = [r for r in rows if r.status == "failed"]
    critical = sum(1 for r in failed if r.critical_failures)
    head = f"composite scoring changes nothing on these {len(rows)} real {unit}"
    if not failed:
        body = "no case failed a check"
    elif critical == len(failed):
        body = "every failure hits a critical check"
    else:
        body = (
            f"{critical} failure(s) hit a critical check and {len(failed) - critical} "
            "fall below the threshold on non-critical checks alone"
        )
    unscored = [
        f"{status} {n}"
        for status in ("error", "missing", "ungraded")
        if (n := sum(1 for r in rows if r.status == status))
    ]
    tail = f" (not scored: {', '.join(unscored)})" if unscored else ""
    return f"{head}: {body}{tail}"


def _failures(rows: Sequence[CompositeCaseRow], profile: Profile) -> dict[str, CheckFailures]:
    return {
        name: CheckFailures(
            failed=sum(1 for r in rows if name in r.checks and r.checks[name].passed is False),
            not_evaluated=sum(
                1 for r in rows if name in r.checks and r.checks[name].passed is None
            ),
            weight=weight,
            critical=name in profile.critical,
        )
        for name, weight in profile.weights.items()
    }


def build_composite_report(
    dataset: Dataset,
    scored: Sequence[CaseResult],
    profile: Profile,
    *,
    input_kind: InputKind,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    sources_version: str | None = None,
) -> CompositeReport:
    """The composite report for every scored case-trial of ``dataset``."""
    rows = [_row(s) for s in scored]
    real = [r for r in rows if not r.synthetic]
    fake = [r for r in rows if r.synthetic]
    # Each group's trial count is its own: real figures never depend on synthetic rows.
    trials = max((r.trial for r in real), default=1)

    def rates(items: Sequence[CompositeCaseRow], den: str) -> tuple[Rate, Rate]:
        n = len(items)
        comp = sum(1 for r in items if r.verdict == "pass")
        strict = sum(1 for r in items if r.strict_verdict == "pass")
        kw: dict[str, Any] = {"interval": interval}
        # Trials of one case are one unit: the intervals are clustered by case.
        return (
            clustered_by_case(
                rate(comp, n, den, numerator_name=COMPOSITE_PASSES, **kw),
                ((r.id, r.verdict == "pass") for r in items),
            ),
            clustered_by_case(
                rate(strict, n, den, numerator_name=STRICT_PASSES, **kw),
                ((r.id, r.strict_verdict == "pass") for r in items),
            ),
        )

    def unit(items: Sequence[CompositeCaseRow]) -> str:
        return "case-trials" if max((r.trial for r in items), default=1) > 1 else "cases"

    composite_pass, strict_pass = rates(real, f"real {unit(real)}")
    synthetic = None
    if fake:
        s_comp, s_strict = rates(fake, f"synthetic {unit(fake)}")
        synthetic = CompositeSynthetic(
            case_ids=list(dict.fromkeys(r.id for r in fake)),
            composite_pass=s_comp,
            strict_pass=s_strict,
            diverging=[r.label for r in fake if r.verdict != r.strict_verdict],
        )
    revisions = sorted({c.source_revision for c in dataset.cases if c.source_revision})
    return CompositeReport(
        dataset=DatasetInfo(
            name=dataset.name,
            version=dataset.version,
            cases=len(dataset.real),
            source_revisions=revisions,
        ),
        sources_version=sources_version,
        input=input_kind,
        trials=trials,
        profile=ProfileInfo(
            name=profile.name,
            weights=dict(profile.weights),
            critical=list(profile.critical),
            threshold=profile.threshold,
        ),
        cases=rows,
        total=len(real),
        statuses=_counts(real),
        composite_pass=composite_pass,
        strict_pass=strict_pass,
        check_failures=_failures(real, profile),
        diverging=[r.label for r in real if r.verdict != r.strict_verdict],
        agreement=_agreement(real, unit(real)),
        synthetic=synthetic,
    )
