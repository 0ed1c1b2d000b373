"""Metrics: counting graded case-trials into rates with named denominators and intervals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.metrics._agreement import (
        Kappa,
        KappaWeights,
        agreement_weights,
        confusion_matrix,
        weighted_kappa,
    )
    from assay.metrics._cluster import (
        clustered_by_case,
        clustered_rate,
        effective_interval,
    )
    from assay.metrics._consistency import (
        CaseConsistency,
        TrialRate,
        TrialSummary,
        summarize_trials,
    )
    from assay.metrics._counts import (
        Counts,
        UncountedStatus,
        per_case_counts,
        per_group_counts,
        summary_from_counts,
        summary_of_counts,
    )
    from assay.metrics._display import decimal, interval_text, percent
    from assay.metrics._former_ci95 import FormerCi95
    from assay.metrics._group import group_by, per_case
    from assay.metrics._intervals import METHODS, IntervalMethod, clopper_pearson, interval, wilson
    from assay.metrics._paired import (
        clustered_delta,
        holm_adjust,
        mcnemar_exact,
        paired_delta_interval,
    )
    from assay.metrics._rate import Rate, rate
    from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting
    from assay.metrics._summarize import (
        ANSWERS,
        CASES,
        SLICE_CASES,
        SliceSummary,
        StatusCounts,
        Summary,
        summarize_graded,
        summarize_results,
    )
    from assay.metrics._tally import cell_tallies, tallies
    from assay.metrics._trials import (
        TrialPolicy,
        pass_at_k,
        pass_hat_k,
        require_declared_selection,
    )

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "Kappa": "assay.metrics._agreement",
    "KappaWeights": "assay.metrics._agreement",
    "agreement_weights": "assay.metrics._agreement",
    "confusion_matrix": "assay.metrics._agreement",
    "weighted_kappa": "assay.metrics._agreement",
    "clustered_by_case": "assay.metrics._cluster",
    "clustered_rate": "assay.metrics._cluster",
    "effective_interval": "assay.metrics._cluster",
    "FormerCi95": "assay.metrics._former_ci95",
    "CaseConsistency": "assay.metrics._consistency",
    "TrialRate": "assay.metrics._consistency",
    "TrialSummary": "assay.metrics._consistency",
    "summarize_trials": "assay.metrics._consistency",
    "group_by": "assay.metrics._group",
    "per_case": "assay.metrics._group",
    "METHODS": "assay.metrics._intervals",
    "IntervalMethod": "assay.metrics._intervals",
    "clopper_pearson": "assay.metrics._intervals",
    "interval": "assay.metrics._intervals",
    "wilson": "assay.metrics._intervals",
    "clustered_delta": "assay.metrics._paired",
    "holm_adjust": "assay.metrics._paired",
    "mcnemar_exact": "assay.metrics._paired",
    "paired_delta_interval": "assay.metrics._paired",
    "Rate": "assay.metrics._rate",
    "rate": "assay.metrics._rate",
    "DEFAULT_INTERVAL": "assay.metrics._setting",
    "IntervalSetting": "assay.metrics._setting",
    "ANSWERS": "assay.metrics._summarize",
    "CASES": "assay.metrics._summarize",
    "SLICE_CASES": "assay.metrics._summarize",
    "SliceSummary": "assay.metrics._summarize",
    "StatusCounts": "assay.metrics._summarize",
    "Summary": "assay.metrics._summarize",
    "summarize_graded": "assay.metrics._summarize",
    "summarize_results": "assay.metrics._summarize",
    "TrialPolicy": "assay.metrics._trials",
    "pass_at_k": "assay.metrics._trials",
    "pass_hat_k": "assay.metrics._trials",
    "require_declared_selection": "assay.metrics._trials",
    "Counts": "assay.metrics._counts",
    "UncountedStatus": "assay.metrics._counts",
    "summary_from_counts": "assay.metrics._counts",
    "summary_of_counts": "assay.metrics._counts",
    "per_case_counts": "assay.metrics._counts",
    "per_group_counts": "assay.metrics._counts",
    "decimal": "assay.metrics._display",
    "interval_text": "assay.metrics._display",
    "percent": "assay.metrics._display",
    "cell_tallies": "assay.metrics._tally",
    "tallies": "assay.metrics._tally",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "ANSWERS",
    "CASES",
    "DEFAULT_INTERVAL",
    "METHODS",
    "SLICE_CASES",
    "CaseConsistency",
    "Counts",
    "FormerCi95",
    "IntervalMethod",
    "IntervalSetting",
    "Kappa",
    "KappaWeights",
    "Rate",
    "SliceSummary",
    "StatusCounts",
    "Summary",
    "TrialPolicy",
    "TrialRate",
    "TrialSummary",
    "UncountedStatus",
    "agreement_weights",
    "cell_tallies",
    "clopper_pearson",
    "clustered_by_case",
    "clustered_delta",
    "clustered_rate",
    "confusion_matrix",
    "decimal",
    "effective_interval",
    "group_by",
    "holm_adjust",
    "interval",
    "interval_text",
    "mcnemar_exact",
    "paired_delta_interval",
    "pass_at_k",
    "pass_hat_k",
    "per_case",
    "per_case_counts",
    "per_group_counts",
    "percent",
    "rate",
    "require_declared_selection",
    "summarize_graded",
    "summarize_results",
    "summarize_trials",
    "summary_from_counts",
    "summary_of_counts",
    "tallies",
    "weighted_kappa",
    "wilson",
]
