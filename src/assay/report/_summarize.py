"""``summarize``: the seed's scoring contract in one call, grading then counting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress

import numpy as np

from assay.cases import Case, Dataset
from assay.grading import (
    Grader,
    PackedVerdicts,
    StructuredGrader,
    field_of,
    grade_all,
    low_of,
    pack,
    structured_verdicts,
)
from assay.metrics import (
    DEFAULT_INTERVAL,
    CountColumns,
    IntervalSetting,
    Summary,
    TrialPolicy,
    summarize_results,
    summary_from_counts,
    verdict_counts,
)
from assay.outcomes import Outcome, Record, Results, as_results


def summarize(
    dataset: Dataset | Sequence[Case],
    results: Results | Mapping[str, Outcome] | Iterable[Record],
    *,
    grader: Grader | None = None,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary:
    """Score ``results`` against ``dataset`` with the seed's rules.

    Raises ``DuplicateCaseIdError``, ``UnknownResultIdError`` or ``DuplicateResultError``
    before anything is scored. A case with no result is ``missing``; errors and missing
    outputs stay in every "cases in the dataset" denominator and never pass.
    """
    cases = dataset.cases if isinstance(dataset, Dataset) else tuple(dataset)
    checked = as_results(results)
    if grader is None or type(grader) is StructuredGrader:
        # the structured grader's verdicts counted without a CaseResult each: the same
        # summary, seven to nine times sooner at a million (bench/summarize_scale.py)
        verdicts = structured_verdicts(cases, checked.records)
        if verdicts is not None:
            return summary_from_counts(
                _counts(verdicts),
                verdicts.real_trials,
                synthetic_trials=verdicts.synthetic_trials,
                interval=interval,
                policy=policy,
            )
    given = dataset if isinstance(dataset, Dataset) else cases
    return summarize_results(grade_all(given, checked, grader), interval=interval, policy=policy)


def _counts(verdicts: PackedVerdicts) -> CountColumns:
    """The counts of every case: per group of cases where trials are one, else per case;
    real and synthetic cases apart when they differ in that."""
    flags = verdicts.synthetic_cases
    per_case = {False: verdicts.real_trials > 1, True: verdicts.synthetic_trials > 1}
    alike = {per_case[apart] for apart in (False, True) if (flags == apart).any()}
    if len(alike) <= 1:
        return verdict_counts(
            verdicts.values,
            verdicts.ids,
            verdicts.slices,
            verdicts.splits,
            verdicts.synthetic_flags,
            per_case=alike == {True},
        )
    parts: list[CountColumns] = []
    for apart in (False, True):
        # the group's cases numbered among themselves
        chosen = flags == apart
        values = verdicts.values[verdicts.synthetic_records == apart]
        rank = np.cumsum(chosen) - 1
        values = pack(rank[field_of(values, "position")], 0, 0) + low_of(values)
        picked = chosen.tolist()
        ids, slices, splits = (
            list(compress(column, picked))
            for column in (verdicts.ids, verdicts.slices, verdicts.splits)
        )
        parts.append(
            verdict_counts(
                values, ids, slices, splits, [apart] * len(ids), per_case=per_case[apart]
            )
        )
    return CountColumns.joined(parts)
