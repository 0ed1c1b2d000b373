"""``summarize``: the seed's scoring contract in one call, grading then counting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress

import numpy as np

from assay._collector import no_cycle_collection
from assay.cases import Case, Dataset
from assay.grading import Grader, StructuredGrader, grade_all
from assay.grading._packed import PackedVerdicts, structured_verdicts
from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalMethod,
    IntervalSetting,
    Summary,
    TrialPolicy,
    summarize_results,
)
from assay.metrics._counts import Counts, summary_from_counts, verdict_counts
from assay.metrics._setting import chosen_interval
from assay.outcomes import Outcome, Record, Results, as_results


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
    cases = dataset.cases if isinstance(dataset, Dataset) else tuple(dataset)
    checked = as_results(results)
    if grader is None or type(grader) is StructuredGrader:
        # the structured grader's verdicts counted without a CaseResult each: the same
        # summary, a million case-trials in under two seconds
        with no_cycle_collection():  # acyclic columns and arrays: nothing to collect
            verdicts = structured_verdicts(cases, checked.records)
            items = _counts(verdicts) if verdicts is not None else []
        if verdicts is not None:
            return summary_from_counts(
                items,
                verdicts.real_trials,
                synthetic_trials=verdicts.synthetic_trials,
                interval=interval,
                policy=policy,
            )
    given = dataset if isinstance(dataset, Dataset) else cases
    return summarize_results(grade_all(given, checked, grader), interval=interval, policy=policy)


def _counts(verdicts: PackedVerdicts) -> list[Counts]:
    """The real cases' counts, then the synthetic cases', each over its own trials."""
    ids, slices, splits = verdicts.ids, verdicts.slices, verdicts.splits
    items: list[Counts] = []
    groups = ((False, verdicts.real_trials), (True, verdicts.synthetic_trials))
    for synthetic, trials in groups:
        chosen = verdicts.synthetic_cases == synthetic
        if not chosen.any():
            continue
        values = verdicts.values[verdicts.synthetic_records == synthetic]
        if chosen.all():
            items += verdict_counts(values, ids, slices, splits, synthetic, trials)
            continue
        # the group's cases numbered among themselves
        rank = np.cumsum(chosen) - 1
        values = (rank[values >> 8] << 8) | (values & 255)
        picked = chosen.tolist()
        items += verdict_counts(
            values,
            list(compress(ids, picked)),
            list(compress(slices, picked)),
            list(compress(splits, picked)),
            synthetic,
            trials,
        )
    return items
