"""Metrics: rates with named denominators and intervals, and the seed's ``summarize``."""

from assay.metrics._intervals import METHODS, IntervalMethod, clopper_pearson, interval, wilson
from assay.metrics._rate import Rate, rate
from assay.metrics._summarize import (
    ANSWERS,
    CASES,
    SLICE_CASES,
    SliceSummary,
    StatusCounts,
    Summary,
    grade_all,
    summarize,
    summarize_graded,
    summarize_results,
    validate_inputs,
)

__all__ = [
    "ANSWERS",
    "CASES",
    "METHODS",
    "SLICE_CASES",
    "IntervalMethod",
    "Rate",
    "SliceSummary",
    "StatusCounts",
    "Summary",
    "clopper_pearson",
    "grade_all",
    "interval",
    "rate",
    "summarize",
    "summarize_graded",
    "summarize_results",
    "validate_inputs",
    "wilson",
]
