"""A report's case-trials and rates as dataframes (``Report.cases_frame``,
``Report.rates_frame``, ``CompositeReport.cases_frame``): the columns, in order, with their
types and meanings, documented in docs/notebooks.md."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assay._frames import FrameColumn, make_frame
from assay.metrics import Rate
from assay.report._correction import UnknownBound

if TYPE_CHECKING:
    from assay.report._composite import CompositeReport
    from assay.report._model import Report

CASE_COLUMNS: tuple[FrameColumn, ...] = (
    FrameColumn("id", "str", "the case's id"),
    FrameColumn("slice", "str", "the case's slice"),
    FrameColumn("trial", "int", "the trial (1 to the report's trials)"),
    FrameColumn("synthetic", "bool", "a synthetic case (counted in no real rate)"),
    FrameColumn("status", "str", "passed, failed, error, missing or ungraded"),
    FrameColumn("reason", "str", "the grader's one-line reason"),
    FrameColumn("outcome", "str", "answer, abstain or error; null when missing"),
    FrameColumn("answer", "str", "the answer's text; null when the outcome has none"),
    FrameColumn("fact", "str", "the answer's fact; null when it has none"),
    FrameColumn("input_tokens", "int", "input tokens the target reported; null if none"),
    FrameColumn("output_tokens", "int", "output tokens the target reported; null if none"),
    FrameColumn("latency_ms", "float", "the target call's latency; null when not measured"),
    FrameColumn("steps", "int", "an agent's steps (model turns and tool executions); null "
                "without a trajectory"),
    FrameColumn("tool_calls", "int", "an agent's tool executions; null without a trajectory"),
    FrameColumn("tool_errors", "int", "tool executions that failed (error); null without a "
                "trajectory"),
    FrameColumn("malformed_calls", "int", "calls with unreadable arguments or an unknown "
                "tool; null without a trajectory"),
)  # fmt: skip
"""The columns of ``Report.cases_frame``: one row per case-trial, in the report's order."""

COMPOSITE_CASE_COLUMNS: tuple[FrameColumn, ...] = (
    FrameColumn("id", "str", "the case's id"),
    FrameColumn("slice", "str", "the case's slice"),
    FrameColumn("trial", "int", "the trial"),
    FrameColumn("synthetic", "bool", "a synthetic case (counted in no real rate)"),
    FrameColumn("status", "str", "passed, failed, error, missing or ungraded"),
    FrameColumn("reason", "str", "the scorer's one-line reason"),
    FrameColumn("answer", "str", "the answer's text; null when the outcome has none"),
    FrameColumn("score", "float", "sum of the passed checks' weights; null unless graded"),
    FrameColumn("verdict", "str", "pass, fail or ungraded (composite)"),
    FrameColumn("strict_verdict", "str", "pass, fail or ungraded (every check must pass)"),
)
"""The columns of ``CompositeReport.cases_frame`` before its check columns: then one
``check:NAME`` column per check of the profile (bool: passed, failed; null: not evaluated
or not run)."""

RATE_COLUMNS: tuple[FrameColumn, ...] = (
    FrameColumn(
        "rate",
        "str",
        "task_success, answer_coverage, answered_accuracy, or a judge "
        "dimension (grounded, citations_supported)",
    ),
    FrameColumn("slice", "str", "the slice; null for the report's real cases as a whole"),
    FrameColumn("numerator", "int", "the rate's numerator"),
    FrameColumn("denominator", "int", "the rate's denominator"),
    FrameColumn("denominator_name", "str", "what the denominator counts"),
    FrameColumn("value", "float", "numerator / denominator; null when the denominator is 0"),
    FrameColumn("ci_low", "float", "the interval's lower bound; null when value is"),
    FrameColumn("ci_high", "float", "the interval's upper bound; null when value is"),
    FrameColumn("confidence", "float", "the interval's confidence level (0.95 by default)"),
    FrameColumn("method", "str", "how the interval was computed (clopper-pearson, wilson…)"),
    FrameColumn("unknown", "int", "error, missing or ungraded case-trials in the denominator; "
                "null when none (and the bounds columns null)"),
    FrameColumn("worst", "float", "the rate with every unknown counted failed"),
    FrameColumn("worst_ci_low", "float", "the worst case's interval's lower bound"),
    FrameColumn("worst_ci_high", "float", "the worst case's interval's upper bound"),
    FrameColumn("best", "float", "the rate with every unknown counted passed"),
    FrameColumn("best_ci_low", "float", "the best case's interval's lower bound"),
    FrameColumn("best_ci_high", "float", "the best case's interval's upper bound"),
)  # fmt: skip
"""The columns of ``Report.rates_frame``: the headline rates, then each slice's task
success, then the judge's dimensions; each with its bounds over its unknowns."""

CHECK_PREFIX = "check:"


def _columns(columns: tuple[FrameColumn, ...]) -> dict[str, list[Any]]:
    return {c.name: [] for c in columns}


def cases_frame(report: Report, backend: str = "pandas") -> Any:
    """``report``'s case-trials as a DataFrame (``CASE_COLUMNS``)."""
    values = _columns(CASE_COLUMNS)
    for row in report.cases:
        for name, value in (
            ("id", row.id),
            ("slice", row.slice),
            ("trial", row.trial),
            ("synthetic", row.synthetic),
            ("status", row.status),
            ("reason", row.reason),
            ("outcome", row.outcome),
            ("answer", row.text),
            ("fact", row.fact),
            ("input_tokens", row.input_tokens),
            ("output_tokens", row.output_tokens),
            ("latency_ms", row.latency_ms),
            ("steps", agent.steps if (agent := row.agent) is not None else None),
            ("tool_calls", agent.tool_calls if agent is not None else None),
            ("tool_errors", agent.tool_errors if agent is not None else None),
            ("malformed_calls", agent.malformed_calls if agent is not None else None),
        ):
            values[name].append(value)
    return make_frame(CASE_COLUMNS, values, backend, "Report.cases_frame")


def _rates(report: Report) -> Iterator[tuple[str, str | None, Rate]]:
    yield "task_success", None, report.task_success
    yield "answer_coverage", None, report.answer_coverage
    yield "answered_accuracy", None, report.answered_accuracy
    for name, sl in report.slices.items():
        yield "task_success", name, sl.task_success
    for name, dimension in report.judge_dimensions.items():
        yield name, None, dimension


def rates_frame(report: Report, backend: str = "pandas") -> Any:
    """``report``'s rates as a DataFrame (``RATE_COLUMNS``), one row per rate and slice."""
    values = _columns(RATE_COLUMNS)
    for name, slice_name, r in _rates(report):
        low, high = r.ci if r.ci is not None else (None, None)
        bound = _bound(report, name, slice_name)
        worst = _figures(bound.worst if bound is not None else None)
        best = _figures(bound.best if bound is not None else None)
        for column, value in (
            ("rate", name),
            ("slice", slice_name),
            ("numerator", r.numerator),
            ("denominator", r.denominator),
            ("denominator_name", r.denominator_name),
            ("value", r.value),
            ("ci_low", low),
            ("ci_high", high),
            ("confidence", r.confidence),
            ("method", r.method),
            ("unknown", bound.unknown if bound is not None else None),
            ("worst", worst[0]),
            ("worst_ci_low", worst[1]),
            ("worst_ci_high", worst[2]),
            ("best", best[0]),
            ("best_ci_low", best[1]),
            ("best_ci_high", best[2]),
        ):
            values[column].append(value)
    return make_frame(RATE_COLUMNS, values, backend, "Report.rates_frame")


def _bound(report: Report, name: str, slice_name: str | None) -> UnknownBound | None:
    """The bounds over its unknowns of the rate ``name`` (of slice ``slice_name``)."""
    b = report.unknown_bounds
    if b is None:
        return None
    if slice_name is not None:
        return b.slices.get(slice_name)
    found = getattr(b, name, None)
    return found if isinstance(found, UnknownBound) else None


def _figures(r: Rate | None) -> tuple[float | None, float | None, float | None]:
    """A rate's value and interval bounds, each None when it has none."""
    if r is None or r.ci is None:
        return (r.value if r is not None else None), None, None
    return r.value, r.ci[0], r.ci[1]


def composite_cases_frame(report: CompositeReport, backend: str = "pandas") -> Any:
    """A composite report's case-trials as a DataFrame: ``COMPOSITE_CASE_COLUMNS``, then
    a ``check:NAME`` column per check of its profile, in the profile's order."""
    checks = list(report.profile.weights)
    checks += sorted({name for row in report.cases for name in row.checks} - set(checks))
    columns = COMPOSITE_CASE_COLUMNS + tuple(
        FrameColumn(f"{CHECK_PREFIX}{name}", "bool", f"the check {name} passed") for name in checks
    )
    values = _columns(columns)
    for row in report.cases:
        for name, value in (
            ("id", row.id),
            ("slice", row.slice),
            ("trial", row.trial),
            ("synthetic", row.synthetic),
            ("status", row.status),
            ("reason", row.reason),
            ("answer", row.answer),
            ("score", row.score),
            ("verdict", row.verdict),
            ("strict_verdict", row.strict_verdict),
        ):
            values[name].append(value)
        for name in checks:
            found = row.checks.get(name)
            values[f"{CHECK_PREFIX}{name}"].append(found.passed if found is not None else None)
    return make_frame(columns, values, backend, "CompositeReport.cases_frame")


__all__ = [
    "CASE_COLUMNS",
    "CHECK_PREFIX",
    "COMPOSITE_CASE_COLUMNS",
    "RATE_COLUMNS",
    "cases_frame",
    "composite_cases_frame",
    "rates_frame",
]
