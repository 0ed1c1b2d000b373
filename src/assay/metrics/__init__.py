"""Metrics: counting graded case-trials into rates with named denominators and intervals."""

from assay.metrics._agreement import (
    Kappa,
    KappaWeights,
    agreement_weights,
    confusion_matrix,
    weighted_kappa,
)
from assay.metrics._cluster import (
    ClusteredEstimate,
    clustered_by_case,
    clustered_rate,
    effective_interval,
)
from assay.metrics._consistency import CaseConsistency, TrialRate, TrialSummary, summarize_trials
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
from assay.metrics._trials import (
    PolicyName,
    TrialPolicy,
    pass_at_k,
    pass_hat_k,
    require_declared_selection,
)

__all__ = [
    "ANSWERS",
    "CASES",
    "DEFAULT_INTERVAL",
    "METHODS",
    "SLICE_CASES",
    "CaseConsistency",
    "ClusteredEstimate",
    "IntervalMethod",
    "IntervalSetting",
    "Kappa",
    "KappaWeights",
    "PolicyName",
    "Rate",
    "SliceSummary",
    "StatusCounts",
    "Summary",
    "TrialPolicy",
    "TrialRate",
    "TrialSummary",
    "agreement_weights",
    "clopper_pearson",
    "clustered_by_case",
    "clustered_delta",
    "clustered_rate",
    "confusion_matrix",
    "effective_interval",
    "group_by",
    "holm_adjust",
    "interval",
    "mcnemar_exact",
    "paired_delta_interval",
    "pass_at_k",
    "pass_hat_k",
    "per_case",
    "rate",
    "require_declared_selection",
    "summarize_graded",
    "summarize_results",
    "summarize_trials",
    "weighted_kappa",
    "wilson",
]
