"""Outcomes and records: what the system under test produced for each case and trial."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.outcomes._outcome import OUTCOME_ADAPTER, Abstain, Answer, Error, Outcome
    from assay.outcomes._parse import (
        Results,
        Trialled,
        as_results,
        check_results,
        check_trial_numbers,
        parse_result_line,
        parse_results,
        plain_line,
        result_line,
        trial_gaps,
        trials_allowed,
        trials_beyond,
        usual_shape,
    )
    from assay.outcomes._record import Record, Usage
    from assay.outcomes._span import Span, SpanRow, span_row
    from assay.outcomes._span_trajectory import (
        TRAJECTORY_FROM_KEY,
        trajectory_from_spans,
        with_span_trajectory,
    )
    from assay.outcomes._trajectory import (
        TRAJECTORY_KEY,
        Ending,
        ModelStep,
        Step,
        ToolCall,
        ToolStatus,
        ToolStep,
        Trajectory,
        TrajectoryError,
        trajectory_extra,
        trajectory_of,
    )

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "plain_line": "assay.outcomes._parse",
    "usual_shape": "assay.outcomes._parse",
    "SpanRow": "assay.outcomes._span",
    "span_row": "assay.outcomes._span",
    "Abstain": "assay.outcomes._outcome",
    "Answer": "assay.outcomes._outcome",
    "Error": "assay.outcomes._outcome",
    "Outcome": "assay.outcomes._outcome",
    "OUTCOME_ADAPTER": "assay.outcomes._outcome",
    "Results": "assay.outcomes._parse",
    "Trialled": "assay.outcomes._parse",
    "as_results": "assay.outcomes._parse",
    "check_results": "assay.outcomes._parse",
    "check_trial_numbers": "assay.outcomes._parse",
    "parse_result_line": "assay.outcomes._parse",
    "parse_results": "assay.outcomes._parse",
    "result_line": "assay.outcomes._parse",
    "trial_gaps": "assay.outcomes._parse",
    "trials_allowed": "assay.outcomes._parse",
    "trials_beyond": "assay.outcomes._parse",
    "Record": "assay.outcomes._record",
    "Usage": "assay.outcomes._record",
    "Span": "assay.outcomes._span",
    "TRAJECTORY_FROM_KEY": "assay.outcomes._span_trajectory",
    "trajectory_from_spans": "assay.outcomes._span_trajectory",
    "with_span_trajectory": "assay.outcomes._span_trajectory",
    "TRAJECTORY_KEY": "assay.outcomes._trajectory",
    "Ending": "assay.outcomes._trajectory",
    "ModelStep": "assay.outcomes._trajectory",
    "Step": "assay.outcomes._trajectory",
    "ToolCall": "assay.outcomes._trajectory",
    "ToolStatus": "assay.outcomes._trajectory",
    "ToolStep": "assay.outcomes._trajectory",
    "Trajectory": "assay.outcomes._trajectory",
    "TrajectoryError": "assay.outcomes._trajectory",
    "trajectory_extra": "assay.outcomes._trajectory",
    "trajectory_of": "assay.outcomes._trajectory",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "OUTCOME_ADAPTER",
    "TRAJECTORY_FROM_KEY",
    "TRAJECTORY_KEY",
    "Abstain",
    "Answer",
    "Ending",
    "Error",
    "ModelStep",
    "Outcome",
    "Record",
    "Results",
    "Span",
    "SpanRow",
    "Step",
    "ToolCall",
    "ToolStatus",
    "ToolStep",
    "Trajectory",
    "TrajectoryError",
    "Trialled",
    "Usage",
    "as_results",
    "check_results",
    "check_trial_numbers",
    "parse_result_line",
    "parse_results",
    "plain_line",
    "result_line",
    "span_row",
    "trajectory_extra",
    "trajectory_from_spans",
    "trajectory_of",
    "trial_gaps",
    "trials_allowed",
    "trials_beyond",
    "usual_shape",
    "with_span_trajectory",
]
