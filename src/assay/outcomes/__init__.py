"""Outcomes and records: what the system under test produced for each case and trial."""

from assay.outcomes._outcome import Abstain, Answer, Error, Outcome
from assay.outcomes._parse import (
    Results,
    as_results,
    check_results,
    parse_result_line,
    parse_results,
    result_line,
    trial_gaps,
)
from assay.outcomes._record import Record, Usage
from assay.outcomes._span import Span

__all__ = [
    "Abstain",
    "Answer",
    "Error",
    "Outcome",
    "Record",
    "Results",
    "Span",
    "Usage",
    "as_results",
    "check_results",
    "parse_result_line",
    "parse_results",
    "result_line",
    "trial_gaps",
]
