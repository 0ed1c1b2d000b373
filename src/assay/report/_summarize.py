"""``summarize``: the seed's scoring contract in one call, grading then counting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from assay.cases import Case, Dataset
from assay.grading import Grader, grade_all
from assay.metrics import IntervalMethod, Summary, TrialPolicy, summarize_results
from assay.outcomes import Outcome, Record, Results


def summarize(
    dataset: Dataset | Sequence[Case],
    results: Results | Mapping[str, Outcome] | Iterable[Record],
    *,
    grader: Grader | None = None,
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
    policy: TrialPolicy | None = None,
) -> Summary:
    """Score ``results`` against ``dataset`` with the seed's rules.

    Raises ``DuplicateCaseIdError``, ``UnknownResultIdError`` or ``DuplicateResultError``
    before anything is scored. A case with no result is ``missing``; errors and missing
    outputs stay in every "cases in the dataset" denominator and never pass.
    """
    return summarize_results(
        grade_all(dataset, results, grader), confidence=confidence, method=method, policy=policy
    )
