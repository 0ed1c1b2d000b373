"""Summaries from counts: a run's case-trials counted by status per case (or per group of
cases) give the same ``Summary`` as ``summarize_results`` over every graded case-trial,
without a ``CaseResult`` for each. The stored runs' SQL counts and the library's
``summarize`` of plain records both end here."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count
from typing import Any, NamedTuple

import numpy as np

from assay._fast.shared_fields import shared_field_names
from assay._fast.unvalidated import checked_instance
from assay.metrics._cluster import clustered_counts
from assay.metrics._columns import CountColumns, Grouped
from assay.metrics._consistency import CaseConsistency, CaseScores, case_trial_summary
from assay.metrics._rate import Rate
from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting
from assay.metrics._summarize import (
    ANSWERED_TRIALS,
    SLICE_TRIALS,
    TRIALS,
    StatusCounts,
    Summary,
    _fits,
    named,
    summary_of_statuses,
)
from assay.metrics._tally import SUMS, group_extent, sum_columns, tallies
from assay.metrics._trials import TrialPolicy

Group = tuple[str, bool, str]  # slice, synthetic, split
_UNJUDGED = "a graded case-trial has no status"
_CONSISTENCY = shared_field_names(
    frozenset({"id", "slice", "passed", "trials", "score", "missing"})
)


class Counts(NamedTuple):
    """Case-trials of one case (or one group of cases) by status, from the store (a
    tuple: a million cases' are made in a fraction of the time of a frozen dataclass)."""

    first: int  # the position of the first case, for dataset order
    cases: int
    case_id: str
    slice: str
    synthetic: bool
    split: str
    recorded: int = 0
    passed: int = 0
    failed: int = 0
    error: int = 0
    ungraded: int = 0
    judged_missing: int = 0
    answered: int = 0
    correct: int = 0
    errored: int = 0  # error outcomes
    labelled: int = 0  # judgments with labels
    cache_notes: int = 0  # records that say whether the cache served them
    answered_unknown: int = 0  # answers whose status is error, missing or ungraded


def _sums(row: Sequence[Any]) -> tuple[dict[str, int], int]:
    """A counted row's sums by ``Counts`` field, and its case-trials that need grading."""
    sums = dict(zip(SUMS, (int(x or 0) for x in row[1:]), strict=True))
    unjudged = sums.pop("unjudged")
    return sums, unjudged


def per_case_counts(
    rows: Sequence[Sequence[Any]], ids: list[str], groups: list[Group]
) -> list[Counts] | None:
    counted: dict[int, tuple[int, ...]] = {}
    for row in rows:
        sums, unjudged = _sums(row)
        if unjudged:
            return None
        counted[int(row[0])] = tuple(sums.values())
    none = (0,) * (len(SUMS) - 1)  # every sum but unjudged
    return [
        Counts(i, 1, case_id, group[0], group[1], group[2], *counted.get(i, none))
        for i, (case_id, group) in enumerate(zip(ids, groups, strict=True))
    ]


def per_group_counts(
    rows: Sequence[Sequence[Any]], distinct: list[Group], codes: list[int]
) -> list[Counts] | None:
    first, sizes = group_extent(codes, len(distinct))
    counted: dict[int, dict[str, int]] = {}
    for row in rows:
        sums, unjudged = _sums(row)
        if unjudged:
            return None
        counted[int(row[0])] = sums
    made = [
        Counts(first[i], sizes[i], "", g[0], g[1], g[2], **counted.get(i, {}))
        for i, g in enumerate(distinct)
    ]
    return sorted(made, key=lambda c: c.first)


class UncountedStatus(ValueError):
    """Some recorded case-trial has a stored status that is none of ``STATUSES``: the
    counts cannot add up (``status_damage`` names it)."""


_STATUS_FIELDS = ("recorded", "passed", "failed", "error", "ungraded", "judged_missing", "cases")


def _statuses(sums: Sequence[int], trials: int) -> StatusCounts:
    """The statuses of case-trials from their sums of ``_STATUS_FIELDS``."""
    recorded, passed, failed, error, ungraded, judged_missing, cases = sums
    if passed + failed + error + ungraded + judged_missing != recorded:
        raise UncountedStatus("a stored status is none of the statuses")
    return StatusCounts(
        passed=passed,
        failed=failed,
        error=error,
        missing=cases * trials - recorded + judged_missing,
        ungraded=ungraded,
    )


def summary_of_counts(
    items: Sequence[Counts] | CountColumns,
    *,
    trials: int,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary:
    """``summarize_graded`` of the case-trials ``items`` count (all real, or all
    synthetic; one entry per case when ``trials`` > 1), in dataset order."""
    columns = items if isinstance(items, CountColumns) else CountColumns.of(items)
    statuses = _statuses([columns.total(f) for f in _STATUS_FIELDS], trials)
    by_slice = Grouped.of(columns.slice)
    per_slice = zip(*(by_slice.sums(getattr(columns, f)) for f in _STATUS_FIELDS), strict=True)
    summary = summary_of_statuses(
        statuses,
        columns.total("answered"),
        columns.total("correct"),
        {
            name: _statuses(sums, trials)
            for name, sums in zip(by_slice.names, per_slice, strict=True)
        },
        trials=trials,
        interval=interval,
        answered_unknown=columns.total("answered_unknown"),
    )
    if trials > 1 and statuses.total:
        chosen = policy if policy is not None else TrialPolicy("mean")
        summary = _with_trials(summary, columns, by_slice, chosen, interval, policy is not None)
    return summary


def _with_trials(
    summary: Summary,
    columns: CountColumns,
    by_slice: Grouped,
    policy: TrialPolicy,
    interval: IntervalSetting,
    declared: bool,
) -> Summary:
    """The case-clustered intervals and the trial summary, from one entry per case."""
    k = summary.trials
    passed, answered = columns.passed, columns.answered

    def every(r: Rate, hits: Any, names: tuple[str, str]) -> Rate:
        return named(clustered_counts(r, hits, np.full(len(hits), k)), names)

    slices = {
        name: sl.model_copy(
            update={
                "task_success": every(sl.task_success, passed[by_slice.positions(i)], SLICE_TRIALS)
            }
        )
        for i, (name, sl) in enumerate(summary.slices.items())
    }
    resolved = policy.resolved(k)
    passing = passed.tolist()
    # each case's score under the policy, computed once for each number of passing trials
    scored = {p: float(resolved.case_score(k, p)) for p in set(passing)}
    scores = list(map(scored.__getitem__, passing))
    missing = (k - columns.recorded + columns.judged_missing).tolist()
    consistency = [
        # each value already of its field's type: made as validating them would make it
        checked_instance(
            CaseConsistency,
            {
                "id": case_id,
                "slice": name,
                "passed": p,
                "trials": k,
                "score": score,
                "missing": absent,
            },
            _CONSISTENCY,
        )
        for case_id, name, p, score, absent in zip(
            columns.case_id, columns.slice, passing, scores, missing, strict=True
        )
    ]
    flaky = (passed > 0) & (passed < k - np.asarray(missing, dtype=np.int64))
    answering = answered > 0
    return summary.model_copy(
        update={
            "task_success": every(summary.task_success, passed, TRIALS),
            "answer_coverage": every(summary.answer_coverage, answered, ANSWERED_TRIALS),
            "answered_accuracy": clustered_counts(
                summary.answered_accuracy, columns.correct[answering], answered[answering]
            ),
            "slices": slices,
            "trial_summary": case_trial_summary(
                consistency,
                CaseScores(
                    scores,
                    [k] * len(scores),
                    passing,
                    {name: by_slice.positions(i).tolist() for i, name in enumerate(by_slice.names)},
                ),
                list(map(columns.case_id.__getitem__, np.flatnonzero(flaky).tolist())),
                policy,
                k,
                interval=interval,
                declared=declared,
            ),
        }
    )


def summary_from_counts(
    items: Sequence[Counts] | CountColumns,
    trials: int,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    synthetic_trials: int | None = None,
) -> Summary:
    """``summarize_results`` of case-trials from their counts: real cases summarized over
    ``trials``, synthetic ones apart over ``synthetic_trials`` (None: ``trials``)."""
    columns = items if isinstance(items, CountColumns) else CountColumns.of(items)
    apart = np.fromiter(columns.synthetic, bool, len(columns))
    real = columns if not apart.any() else columns.where(~apart)
    summary = summary_of_counts(
        real, trials=trials if len(real) else 1, interval=interval, policy=policy
    )
    if apart.any():
        synthetic = columns.where(apart)
        apart_trials = trials if synthetic_trials is None else synthetic_trials
        summary = summary.model_copy(
            update={
                "synthetic": summary_of_counts(
                    synthetic,
                    trials=apart_trials,
                    interval=interval,
                    policy=policy if policy is None or _fits(policy, apart_trials) else None,
                )
            }
        )
    return summary


def verdict_counts(
    values: Any,
    ids: list[str],
    slices: list[str],
    splits: list[str],
    synthetic: list[bool],
    per_case: bool,
) -> CountColumns:
    """The ``Counts`` of cases from their graded case-trials, each packed as
    ``assay.metrics._tally`` counts them with a status (never none) and keyed by its
    case's position in ``ids``: one per case (``per_case``), else one per (slice,
    synthetic, split) group, in dataset order."""
    if per_case:
        columns = sum_columns(values, None, len(ids), "ungraded")
        if columns is None:
            raise ValueError(_UNJUDGED)
        del columns[SUMS.index("unjudged")]  # the case-trials to be graded: none
        n = len(ids)
        numbers = dict(zip(Counts._fields[6:], columns, strict=True))
        return CountColumns(
            first=np.arange(n, dtype=np.int64),
            cases=np.ones(n, dtype=np.int64),
            case_id=ids,
            slice=slices,
            synthetic=synthetic,
            split=splits,
            **{name: np.array(column, dtype=np.int64) for name, column in numbers.items()},
        )
    # each case numbered by its group's first case's place, then numbered densely
    code: dict[tuple[str, bool, str], int] = {}
    keys = zip(slices, synthetic, splits, strict=True)
    first_seen = np.fromiter(map(code.setdefault, keys, count()), np.int64, len(ids))
    dense = np.zeros(len(ids), dtype=np.int64)
    dense[list(code.values())] = np.arange(len(code))
    codes = dense[first_seen].tolist()
    distinct = list(code)
    rows = tallies(values, codes, len(distinct), "ungraded")
    made = None if rows is None else per_group_counts(rows, distinct, codes)
    if made is None:
        raise ValueError(_UNJUDGED)
    return CountColumns.of(made)
