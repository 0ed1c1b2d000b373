"""``summarize``: the seed's scoring contract in one call, grading then counting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from assay.cases import Case, Dataset
from assay.grading import Grader, grade_all
from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalMethod,
    IntervalSetting,
    Summary,
    TrialPolicy,
    summarize_results,
)
from assay.metrics._setting import chosen_interval
from assay.outcomes import Outcome, Record, Results


def summarize(
    dataset: Dataset | Sequence[Case],
    results: Results | Mapping[str, Outcome] | Iterable[Record],
    *,
    grader: Grader | None = None,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    confidence: float | None = None,
    method: IntervalMethod | None = None,
) -> Summary:
    """Score ``results`` against ``dataset`` with the seed's rules.

    Raises ``DuplicateCaseIdError``, ``UnknownResultIdError`` or ``DuplicateResultError``
    before anything is scored. A case with no result is ``missing``; errors and missing
    outputs stay in every "cases in the dataset" denominator and never pass.
    """
    interval = chosen_interval(interval, confidence, method, "summarize")
    return summarize_results(grade_all(dataset, results, grader), interval=interval, policy=policy)
