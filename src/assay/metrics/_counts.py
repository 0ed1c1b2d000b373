"""Summaries from counts: a run's case-trials counted by status per case (or per group of
cases) give the same ``Summary`` as ``summarize_results`` over every graded case-trial,
without a ``CaseResult`` for each. The stored runs' SQL counts and the library's
``summarize`` of plain records both end here."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count, repeat
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np

from assay._compact import checked_instance, shared_field_names
from assay.metrics._cluster import clustered_counts
from assay.metrics._consistency import CaseConsistency, trial_summary
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
from assay.metrics._tally import group_extent, sum_columns, tallies
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


def _sums(row: Sequence[Any]) -> tuple[dict[str, int], int]:
    """A counted row's sums by ``Counts`` field, and its case-trials that need grading."""
    (
        rec,
        passed,
        failed,
        error,
        ungraded,
        judged_missing,
        unjudged,
        answered,
        correct,
        errored,
        labelled,
        cache_notes,
    ) = (int(x or 0) for x in row[1:])
    sums = {
        "recorded": rec,
        "passed": passed,
        "failed": failed,
        "error": error,
        "ungraded": ungraded,
        "judged_missing": judged_missing,
        "answered": answered,
        "correct": correct,
        "errored": errored,
        "labelled": labelled,
        "cache_notes": cache_notes,
    }
    return sums, unjudged


def per_case_counts(
    rows: Sequence[Sequence[Any]], ids: list[str], groups: list[Group]
) -> list[Counts] | None:
    counted: dict[int, tuple[int, ...]] = {}
    for row in rows:
        sums = [int(x or 0) for x in row[1:]]
        if sums[6]:  # case-trials that need grading
            return None
        counted[int(row[0])] = (*sums[:6], *sums[7:])
    none = (0,) * 11
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


def _total(items: Sequence[Counts], field: str) -> int:
    """The sum of one field of ``items``."""
    return sum(map(attrgetter(field), items))


def _column(items: Sequence[Counts], field: str) -> list[int]:
    """One field of each of ``items``."""
    return list(map(attrgetter(field), items))


_STATUS_FIELDS = ("recorded", "passed", "failed", "error", "ungraded", "judged_missing", "cases")


def _statuses(items: Sequence[Counts], trials: int) -> StatusCounts:
    recorded, passed, failed, error, ungraded, judged_missing, cases = (
        _total(items, field) for field in _STATUS_FIELDS
    )
    if passed + failed + error + ungraded + judged_missing != recorded:
        raise UncountedStatus("a stored status is none of the statuses")
    return StatusCounts(
        passed=passed,
        failed=failed,
        error=error,
        missing=cases * trials - recorded + judged_missing,
        ungraded=ungraded,
    )


def _by_slice(items: Sequence[Counts]) -> dict[str, list[Counts]]:
    groups: dict[str, list[Counts]] = {}
    for c in items:
        groups.setdefault(c.slice, []).append(c)
    return groups


def summary_of_counts(
    items: Sequence[Counts],
    *,
    trials: int,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary:
    """``summarize_graded`` of the case-trials ``items`` count (all real, or all
    synthetic; one ``Counts`` per case when ``trials`` > 1), in dataset order."""

    statuses = _statuses(items, trials)
    total = statuses.total
    by_slice = _by_slice(items)
    summary = summary_of_statuses(
        statuses,
        _total(items, "answered"),
        _total(items, "correct"),
        {name: _statuses(group, trials) for name, group in by_slice.items()},
        trials=trials,
        interval=interval,
    )
    if trials > 1 and total:
        chosen = policy if policy is not None else TrialPolicy("mean")
        summary = _with_trials(summary, items, by_slice, chosen, interval, policy is not None)
    return summary


def _with_trials(
    summary: Summary,
    items: Sequence[Counts],
    by_slice: dict[str, list[Counts]],
    policy: TrialPolicy,
    interval: IntervalSetting,
    declared: bool,
) -> Summary:
    """The case-clustered intervals and the trial summary, from one ``Counts`` per case."""
    k = summary.trials

    def every(r: Rate, group: Sequence[Counts], names: tuple[str, str]) -> Rate:
        return named(clustered_counts(r, _column(group, "passed"), [k] * len(group)), names)

    answering = [c for c in items if c.answered]
    slices = {
        name: sl.model_copy(
            update={"task_success": every(sl.task_success, by_slice[name], SLICE_TRIALS)}
        )
        for name, sl in summary.slices.items()
    }
    resolved = policy.resolved(k)
    passing = _column(items, "passed")
    # each case's score under the policy, computed once for each number of passing trials
    scores = {passed: float(resolved.case_score(k, passed)) for passed in set(passing)}
    columns = zip(
        *(_column(items, f) for f in ("case_id", "slice", "recorded", "judged_missing")),
        passing,
        strict=True,
    )
    consistency = [
        # each value already of its field's type: made as validating them would make it
        checked_instance(
            CaseConsistency,
            {
                "id": case_id,
                "slice": name,
                "passed": passed,
                "trials": k,
                "score": scores[passed],
                "missing": k - recorded + judged_missing,
            },
            _CONSISTENCY,
        )
        for case_id, name, recorded, judged_missing, passed in columns
    ]
    return summary.model_copy(
        update={
            "task_success": every(summary.task_success, items, TRIALS),
            "answer_coverage": named(
                clustered_counts(
                    summary.answer_coverage, _column(items, "answered"), [k] * len(items)
                ),
                ANSWERED_TRIALS,
            ),
            "answered_accuracy": clustered_counts(
                summary.answered_accuracy,
                _column(answering, "correct"),
                _column(answering, "answered"),
            ),
            "slices": slices,
            "trial_summary": trial_summary(
                consistency, policy, k, interval=interval, declared=declared
            ),
        }
    )


def summary_from_counts(
    items: Sequence[Counts],
    trials: int,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    synthetic_trials: int | None = None,
) -> Summary:
    """``summarize_results`` of case-trials from their counts: real cases summarized over
    ``trials``, synthetic ones apart over ``synthetic_trials`` (None: ``trials``)."""
    real = [c for c in items if not c.synthetic]
    synthetic = [c for c in items if c.synthetic]
    summary = summary_of_counts(
        real, trials=trials if real else 1, interval=interval, policy=policy
    )
    if synthetic:
        apart_trials = trials if synthetic_trials is None else synthetic_trials
        apart = summary_of_counts(
            synthetic,
            trials=apart_trials,
            interval=interval,
            policy=policy if policy is None or _fits(policy, apart_trials) else None,
        )
        summary = summary.model_copy(update={"synthetic": apart})
    return summary


def verdict_counts(
    values: Any,
    ids: list[str],
    slices: list[str],
    splits: list[str],
    synthetic: list[bool],
    per_case: bool,
) -> list[Counts]:
    """The ``Counts`` of cases from their graded case-trials, each packed as
    ``assay.metrics._tally`` counts them with a status (never none) and keyed by its
    case's position in ``ids``: one per case (``per_case``), else one per (slice,
    synthetic, split) group, in dataset order."""
    if per_case:
        columns = sum_columns(values, None, len(ids), "ungraded")
        if columns is None:
            raise ValueError(_UNJUDGED)
        del columns[6]  # the case-trials to be graded: none
        n = len(ids)
        return list(map(Counts, range(n), repeat(1, n), ids, slices, synthetic, splits, *columns))
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
    return made
