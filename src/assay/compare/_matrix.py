"""The matrix report: every variant's rates side by side and every pair compared, paired
case by case, with Holm's adjustment across all pairs (``assay matrix``, schema version 1)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay._display import Displayed
from assay._json_schema import does_not_apply, model_schema
from assay._version import __version__
from assay.compare._compare import compare_runs
from assay.compare._model import Delta
from assay.compare._pairing import RunSide
from assay.errors import AssayInputError, did_you_mean
from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalSetting,
    Rate,
    StatusCounts,
    holm_adjust,
)
from assay.report import HELDOUT_BANNER, CacheSummary, Report, UsageSummary

MATRIX_SCHEMA_VERSION = 1
HOLM_NOTE = (
    "p_holm: Holm's step-down adjustment across all {m} (family-wise error rate); "
    "the delta intervals are per pair, not adjusted"
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class UsageTotals(_Frozen):
    """Tokens and cost a variant paid: over its case-trials that called the target. Those
    served from the response cache are counted apart (``cached``; their cost as
    ``cost_avoided_usd``, and their tokens in ``cache`` as avoided)."""

    input_tokens: int
    output_tokens: int
    case_trials_with_usage: int = Field(
        description="Recorded case-trials that called the target and reported usage"
    )
    cached: int = Field(default=0, description="Recorded case-trials served from the cache")
    cost_usd: float | None = Field(
        default=None, description="Cost paid (null without a price for the variant's model)"
    )
    cost_avoided_usd: float | None = Field(
        default=None, description="Cost of the served replies, avoided by the cache"
    )


def usage_totals(usage: UsageSummary) -> UsageTotals:
    """A variant's usage row from its report's usage section."""
    return UsageTotals(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        case_trials_with_usage=usage.usage_reported,
        cached=usage.cached,
        cost_usd=usage.cost_usd,
        cost_avoided_usd=usage.cost_avoided_usd,
    )


class VariantRow(_Frozen):
    """One variant: its run, its overrides and its figures."""

    name: str
    run_id: str
    status: str = Field(description="How the variant's run ended")
    overrides: dict[str, Any]
    total: int
    statuses: StatusCounts
    task_success: Rate
    answer_coverage: Rate
    answered_accuracy: Rate
    slices: dict[str, Rate] = Field(description="Slice name -> task success in that slice")
    usage: UsageTotals | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="The variant's tokens and cost; omitted when it does not apply (no usage)",
    )
    cache: CacheSummary | None = Field(
        default=None,
        exclude_if=does_not_apply,
        description="Case-trials served from the response cache; omitted when it does not "
        "apply (no cache)",
    )


class MatrixTest(_Frozen):
    """The exact McNemar test of a pair, and its Holm-adjusted p-value."""

    p_value: float
    p_holm: float = Field(description="Holm-adjusted across every pair of the matrix")
    unit: str = Field(description="case-trials, or cases when there are several trials")


class PairRow(_Frozen):
    """Variant ``b`` against variant ``a`` over their paired case-trials."""

    a: str
    b: str
    paired: int
    newly_fixed: int = Field(description="Not passed in a, passed in b (in mcnemar.unit)")
    newly_broken: int = Field(description="Passed in a, not passed in b (in mcnemar.unit)")
    mcnemar: MatrixTest
    delta: Delta = Field(description="Task success of b minus a, with its paired interval")


class GridRow(_Frozen):
    """One case-trial's status in every variant."""

    id: str
    trial: int = 1
    slice: str
    statuses: dict[str, str] = Field(description="Variant name -> status")
    disagree: bool = Field(description="Passed in some variants and not in others")


class MatrixReport(_Frozen, Displayed):
    """A matrix: one dataset version, one run per variant (``schema_version`` 1)."""

    schema_version: int = MATRIX_SCHEMA_VERSION
    assay_version: str
    matrix_id: str
    dataset_name: str
    dataset_version: str
    cases: int
    trials: int
    variants: list[VariantRow]
    pairs: list[PairRow]
    multiple_comparisons: str = Field(description="How the pairs' p-values are adjusted")
    grid: list[GridRow] = Field(default_factory=list)
    heldout_cases: int = Field(
        default=0,
        description="Held-out cases included in every variant's run (run with --split "
        "heldout|all --confirm); 0 when the matrix ran the dev split only",
    )

    @property
    def heldout_line(self) -> str | None:
        """'HELD-OUT RESULT: 4 held-out case(s) included in every variant', or None."""
        if not self.heldout_cases:
            return None
        return f"{HELDOUT_BANNER}: {self.heldout_cases} held-out case(s) included in every variant"


@dataclass(frozen=True)
class VariantInput:
    """What the matrix report needs of one variant's run."""

    name: str
    run_id: str
    status: str
    overrides: dict[str, Any]
    report: Report
    usage: UsageTotals | None = None


def _row(v: VariantInput) -> VariantRow:
    r = v.report
    return VariantRow(
        name=v.name,
        run_id=v.run_id,
        status=v.status,
        overrides=v.overrides,
        total=r.total,
        statuses=r.statuses,
        task_success=r.task_success,
        answer_coverage=r.answer_coverage,
        answered_accuracy=r.answered_accuracy,
        slices={name: s.task_success for name, s in r.slices.items()},
        usage=v.usage or (usage_totals(r.usage) if r.usage is not None else None),
        cache=r.cache,
    )


def _grid(variants: Sequence[VariantInput]) -> list[GridRow]:
    rows: dict[tuple[str, int], dict[str, str]] = {}
    slices: dict[tuple[str, int], str] = {}
    for v in variants:
        for c in v.report.cases:
            if not c.synthetic:
                rows.setdefault((c.id, c.trial), {})[v.name] = c.status
                slices[(c.id, c.trial)] = c.slice
    grid = []
    for (case_id, trial), statuses in rows.items():
        passed = {statuses.get(v.name) == "passed" for v in variants}
        grid.append(
            GridRow(
                id=case_id,
                trial=trial,
                slice=slices[(case_id, trial)],
                statuses=statuses,
                disagree=len(passed) > 1,
            )
        )
    return grid


def build_matrix(
    matrix_id: str,
    variants: Sequence[VariantInput],
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> MatrixReport:
    """Rows per variant, every pair compared (exact McNemar, Holm-adjusted across pairs,
    Newcombe's paired delta interval) and the case × variant grid.

    Raises ``AssayInputError`` when the variants were not run on one dataset version.
    """
    if not variants:
        raise AssayInputError(f"matrix {matrix_id} has no runs")
    versions = sorted({v.report.dataset.version for v in variants})
    if len(versions) > 1:
        raise AssayInputError(
            f"matrix {matrix_id}: its runs are on {len(versions)} dataset versions "
            f"({', '.join(versions)}); a matrix compares runs of one dataset version"
        )
    comparisons = []
    for a, b in itertools.combinations(variants, 2):
        side_a = RunSide.from_report(a.report, a.name, config=a.overrides)
        side_b = RunSide.from_report(b.report, b.name, config=b.overrides)
        comparison = compare_runs(side_a, side_b, interval=interval)
        comparisons.append((a.name, b.name, comparison))
    adjusted = holm_adjust([c.mcnemar.p_value for _, _, c in comparisons])
    pairs = [
        PairRow(
            a=a,
            b=b,
            paired=c.paired,
            newly_fixed=c.mcnemar.fixed,
            newly_broken=c.mcnemar.broken,
            mcnemar=MatrixTest(p_value=c.mcnemar.p_value, p_holm=p_holm, unit=c.mcnemar.unit),
            delta=c.task_success_delta,
        )
        for (a, b, c), p_holm in zip(comparisons, adjusted, strict=True)
    ]
    first = variants[0].report
    return MatrixReport(
        assay_version=__version__,
        matrix_id=matrix_id,
        dataset_name=first.dataset.name,
        dataset_version=first.dataset.version,
        cases=first.dataset.cases,
        trials=max(v.report.trials for v in variants),
        variants=[_row(v) for v in variants],
        pairs=pairs,
        multiple_comparisons=HOLM_NOTE.format(
            m=f"{len(pairs)} pair" + ("" if len(pairs) == 1 else "s")
        ),
        grid=_grid(variants),
        heldout_cases=first.heldout.cases if first.heldout is not None else 0,
    )


def matrix_schema() -> dict[str, Any]:
    """The JSON Schema of ``assay matrix --format json`` (docs/matrix.schema.json)."""
    return model_schema(MatrixReport, name="matrix", version=MATRIX_SCHEMA_VERSION)


class BestCheck(_Frozen):
    """Whether the best other variant of a matrix is not worse than its baseline variant."""

    baseline: str
    best: str | None = Field(description="The other variant with the highest task success")
    baseline_task_success: float | None
    best_task_success: float | None
    pair: PairRow | None = None
    passed: bool
    message: str


def best_not_worse(m: MatrixReport, baseline: str) -> BestCheck:
    """Check that the variant with the highest task success, among the others, is not
    worse than ``baseline`` (its task success at least the baseline's; n/a never passes).

    Raises ``AssayInputError`` when ``baseline`` is not a variant of the matrix.
    """
    names = [v.name for v in m.variants]
    if baseline not in names:
        raise AssayInputError(
            f"--best-not-worse-than {baseline}: matrix {m.matrix_id} has no such variant"
            f"{did_you_mean(baseline, names)}; its variants: {', '.join(names)}"
        )
    base = next(v for v in m.variants if v.name == baseline)
    others = [v for v in m.variants if v.name != baseline and v.task_success.value is not None]
    base_value = base.task_success.value
    if not others or base_value is None:
        why = "no other variant has a task success" if not others else "the baseline's is n/a"
        return BestCheck(
            baseline=baseline,
            best=None,
            baseline_task_success=base_value,
            best_task_success=None,
            passed=False,
            message=f"FAIL best variant not worse than {baseline}: n/a ({why})",
        )
    best = max(others, key=lambda v: v.task_success.value or 0.0)  # first of equals wins
    best_value = best.task_success.value
    assert best_value is not None
    pair = next((p for p in m.pairs if {p.a, p.b} == {baseline, best.name}), None)
    passed = best_value >= base_value
    word = "PASS" if passed else "FAIL"
    detail = ""
    if pair is not None:
        detail = f"; paired: p = {pair.mcnemar.p_value:.3g}, Holm p = {pair.mcnemar.p_holm:.3g}"
    return BestCheck(
        baseline=baseline,
        best=best.name,
        baseline_task_success=base_value,
        best_task_success=best_value,
        pair=pair,
        passed=passed,
        message=(
            f"{word} best variant not worse than {baseline}: {best.name} "
            f"{best.task_success.numerator}/{best.task_success.denominator} = "
            f"{best_value * 100:.1f}% vs {base.task_success.numerator}/"
            f"{base.task_success.denominator} = {base_value * 100:.1f}%{detail}"
        ),
    )
