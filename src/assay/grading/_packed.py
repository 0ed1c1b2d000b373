"""The structured grader's verdicts on a whole set of plain records at once: each recorded
case-trial's status as ``grade`` with the ``StructuredGrader`` gives it, packed into one
integer (``assay.grading._codes``; ``assay.metrics._tally`` counts them) without a
``Judgment`` or ``CaseResult`` for each.

Only what the structured grader and assay's own rules read is looked at: the case's
position, the trial, the outcome's type, an answer's fact key and, of a record that
carries extra data, whether its trajectory ended at the step limit. A set of results this
cannot judge exactly as ``grade`` would (a record of an unknown case, a case-trial
recorded twice, an outcome or record of another type) gives None, and the caller grades
it one case-trial at a time, which names the problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import attrgetter, eq, is_
from typing import Any

import numpy as np

from assay.cases import Case
from assay.grading._rules import stopped_at_step_limit
from assay.grading._status_rule import (
    ANSWER_KIND,
    OTHER_KIND,
    RECORDED_KINDS,
    kind_code,
    pack,
    status_code,
    status_of,
)
from assay.grading._structured import abstained_verdict, answered_verdict
from assay.outcomes import Abstain, Answer, Error, Record, trials_allowed

_KINDS: dict[type, int] = {
    kind: kind_code(kind.model_fields["kind"].default) for kind in (Error, Answer, Abstain)
}
_FACT = attrgetter("fact")


@dataclass(frozen=True, slots=True)
class PackedVerdicts:
    """Each record's verdict packed by the status rule's ``LAYOUT`` (in ``values``, a
    numpy array in the records' order), whether each case is synthetic (by position) and
    each record's, the trial count of real and synthetic cases (the
    highest trial recorded for a case of the group, at least 1: ``grade``'s rule), and
    each case's id, slice, split and synthetic flag."""

    values: Any
    synthetic_cases: Any
    synthetic_records: Any
    real_trials: int
    synthetic_trials: int
    ids: list[str]
    slices: list[str]
    splits: list[str]
    synthetic_flags: list[bool]


def structured_verdicts(cases: Sequence[Case], records: Sequence[Record]) -> PackedVerdicts | None:
    """The structured grader's verdicts on ``records`` (see the module), or None when
    they must be graded one at a time (and checked: unknown ids, repeated case-trials)."""
    n, m = len(cases), len(records)
    if not set(map(type, records)) <= {Record} or not set(map(type, cases)) <= {Case}:
        return None
    ids, synthetic_flags, expected, accepted, slices, splits = _case_columns(cases)
    wanted, trial_numbers, outcomes, extras = _record_columns(records)
    positions = _positions(ids, wanted)
    if positions is None:
        return None
    try:
        trials = np.array(trial_numbers, dtype=np.int64)
    except OverflowError:  # a trial past 64 bits
        return None
    kinds = np.fromiter(map(_KINDS.get, map(type, outcomes), repeat(-1)), np.int64, m)
    if m and (trials.min() < 1 or kinds.min() < 0):
        return None
    synthetic = np.fromiter(synthetic_flags, bool, n)
    apart = synthetic[positions]
    real_trials = int(trials[~apart].max(initial=1))
    synthetic_trials = int(trials[apart].max(initial=1))
    most = max(real_trials, synthetic_trials)
    if most > trials_allowed(m, m) and most > trials_allowed(m, _distinct(positions, n)):
        return None  # a trial number far beyond what the records hold
    # most is now at most MAX_TRIALS: a slot (position * most + trial - 1) fits in 63 bits
    if _repeats(positions * most + trials - 1, n * most):
        return None  # a case-trial recorded twice
    abstains = np.fromiter(map(is_, expected, repeat(None)), bool, n)
    status = _statuses(positions, kinds, outcomes, abstains, expected, accepted)
    limited = [i for i in compress(range(m), extras) if stopped_at_step_limit(records[i])]
    if limited:
        status[limited] = _STEP_LIMITED[kinds[limited]]
    return PackedVerdicts(
        values=pack(positions, kinds, status),
        synthetic_cases=synthetic,
        synthetic_records=apart,
        real_trials=real_trials,
        synthetic_trials=synthetic_trials,
        ids=ids,
        slices=slices,
        splits=splits,
        synthetic_flags=synthetic_flags,
    )


def _distinct(positions: Any, n: int) -> int:
    """How many of ``n`` cases the records' ``positions`` name."""
    return int(np.count_nonzero(np.bincount(positions, minlength=n)))


def _repeats(slots: Any, size: int) -> bool:
    """Whether a value repeats among ``slots`` (numpy integers from 0 below ``size``):
    counted when they are few enough to count, else sorted."""
    if (slots[1:] > slots[:-1]).all():  # in order, as a run writes them in dataset order
        return False
    if size <= 4 * len(slots):
        return bool(np.bincount(slots).max() > 1)
    ordered = np.sort(slots)
    return bool((ordered[1:] == ordered[:-1]).any())


def _case_columns(cases: Sequence[Case]) -> tuple[list[Any], ...]:
    """The id, synthetic flag, expected fact, accepted facts, slice and split of each of
    ``cases``, a list each. A case expects an abstention exactly when it has no expected
    fact (``Case`` validates that), so its expected behavior is not read."""
    columns: tuple[list[Any], ...] = ([], [], [], [], [], [])
    ids, synthetic, expected, accepted, slices, splits = (c.append for c in columns)
    # one pass, each case's instance dictionary read while it is at hand: a pass per
    # field reads a million cases from memory six times (a third slower)
    for fields in map(vars, cases):
        ids(fields["id"])
        synthetic(fields["synthetic"])
        expected(fields["expected_fact"])
        accepted(fields["accepted_facts"])
        slices(fields["slice"])
        splits(fields["split"])
    return columns


def _record_columns(
    records: Sequence[Record],
) -> tuple[list[str], list[int], list[Any], list[dict[str, Any]]]:
    """Each record's case id, trial, outcome and extra data (one pass, as
    ``_case_columns``)."""
    wanted: list[str] = []
    trials: list[int] = []
    outcomes: list[Any] = []
    extras: list[dict[str, Any]] = []
    case_id, trial, outcome, extra = wanted.append, trials.append, outcomes.append, extras.append
    for record in records:
        case_id(record.case_id)
        trial(record.trial)
        outcome(record.outcome)
        extra(record.extra)
    return wanted, trials, outcomes, extras


def _positions(ids: list[str], wanted: list[str]) -> Any | None:
    """The position among ``ids`` of each of ``wanted`` (a numpy array), or None when one
    is not among them or an id repeats: found by the ids' hashes, sorted and searched by
    numpy, and checked id by id (ids two of which share a hash are looked up in a
    dictionary instead)."""
    hashes = np.fromiter(map(hash, ids), np.int64, len(ids))
    order = np.argsort(hashes)
    ordered = hashes[order]
    if (ordered[1:] == ordered[:-1]).any():  # an id repeated, or two ids of one hash
        index = dict(zip(ids, range(len(ids)), strict=True))
        if len(index) != len(ids):
            return None
        try:
            return np.array(list(map(index.__getitem__, wanted)), dtype=np.int64)
        except KeyError:
            return None
    if not ids:
        return None if wanted else np.zeros(0, dtype=np.int64)
    sought = np.fromiter(map(hash, wanted), np.int64, len(wanted))
    # the hashes searched in sorted order read the table in order: with the sort, half
    # the time of searching them as they come at a million
    queries = np.argsort(sought, kind="stable")
    at = np.empty(len(wanted), dtype=np.int64)
    at[queries] = np.searchsorted(ordered, sought[queries])
    found = order[np.minimum(at, len(ids) - 1)]
    if not _same_texts(ids, found, wanted):
        return None  # a result of a case not in the dataset
    return found


def _same_texts(texts: list[str], at: Any, wanted: list[str]) -> bool:
    """Whether ``texts[at[i]] == wanted[i]`` for every i: compared as rows of bytes by
    numpy when both are ASCII texts of one length (random ids, UUIDs), else text by text
    (each case's id is then read from memory at random: a third of a second at a
    million records in random order)."""
    rows = _fixed_width(texts)
    sought = None if rows is None else _fixed_width(wanted)
    if rows is not None and sought is not None and rows.shape[1] == sought.shape[1]:
        return bool((rows[at] == sought).all())
    return list(map(texts.__getitem__, at.tolist())) == wanted


def _fixed_width(texts: list[str]) -> Any | None:
    """``texts`` as the rows of a numpy byte matrix, each ending in a NUL byte, when
    every one is ASCII, of one length and without a NUL (so that equal rows are equal
    texts); else None."""
    if not texts or len(texts[-1]) != len(texts[0]):  # numbered ids: "c9", "c10"…
        return None
    width = len(texts[0]) + 1
    joined = "\0".join(texts)
    if len(joined) != len(texts) * width - 1 or not joined.isascii():
        return None
    rows = np.frombuffer(joined.encode("ascii") + b"\0", np.uint8).reshape(len(texts), width)
    # the only NULs are the separators, one at the end of each row: every text is of the
    # first one's length
    if np.count_nonzero(rows == 0) != len(texts) or rows[:, -1].any():
        return None
    return rows


def _statuses(
    positions: Any,
    kinds: Any,
    outcomes: list[Any],
    abstains: Any,
    expected: Sequence[str | None],
    accepted: Sequence[tuple[str, ...]],
) -> Any:
    """Each record's status code, read off ``VERDICTS`` by what the structured grader
    reads of it: its kind, whether its case expects an abstention (``abstains``, by
    position), whether an answer has no fact key, and whether its fact is the case's
    ``expected`` fact or one of those it ``accepted``."""
    expects_abstention = abstains[positions].astype(np.int64)
    keyless = np.zeros(len(positions), dtype=np.int64)
    matched = np.zeros(len(positions), dtype=np.int64)
    answered = kinds == ANSWER_KIND
    at = positions[answered]
    facts = list(map(_FACT, compress(outcomes, answered.tolist())))
    found = np.fromiter(map(eq, facts, map(expected.__getitem__, at.tolist())), bool, len(at))
    unkeyed = np.fromiter(map(is_, facts, repeat(None)), bool, len(at))
    alternatives = np.fromiter(map(bool, accepted), bool, len(accepted))
    for i in np.flatnonzero(alternatives[at] & ~found & ~unkeyed).tolist():
        found[i] = facts[i] in accepted[at[i]]
    keyless[answered] = unkeyed
    matched[answered] = found
    return _VERDICTS[((kinds * 2 + expects_abstention) * 2 + keyless) * 2 + matched]


@dataclass(frozen=True, slots=True)
class _Labels:
    """A case as the structured grader reads it, for ``VERDICTS``."""

    expected_behavior: str
    expected_fact: str | None
    facts: frozenset[str]


def _verdict_code(kind: int, expects_abstention: bool, keyless: bool, matched: bool) -> int:
    """The status code the status rule and the structured grader give a recorded outcome
    of kind code ``kind`` with these features (an answer's fact is None when
    ``keyless``, else the expected fact when ``matched``, else another)."""
    ruled = status_of(True, RECORDED_KINDS[kind], None)
    if ruled is not None:
        return status_code(ruled)
    case = _Labels(
        "abstain" if expects_abstention else "answer",
        None if expects_abstention else "expected",
        frozenset() if expects_abstention else frozenset({"expected"}),
    )
    if kind != ANSWER_KIND:
        return status_code(abstained_verdict(case)[0])
    fact = None if keyless else "expected" if matched else "other"
    return status_code(answered_verdict(case, fact)[0])


_VERDICTS = np.array(
    [
        _verdict_code(kind, bool(expects), bool(keyless), bool(matched))
        for kind in range(OTHER_KIND + 1)
        for expects in (0, 1)
        for keyless in (0, 1)
        for matched in (0, 1)
    ],
    dtype=np.int64,
)
"""The structured grader's status code for every combination of what it reads of a
recorded outcome, by ``((kind * 2 + expects_abstention) * 2 + keyless) * 2 + matched``."""

_STEP_LIMITED = np.array(
    [
        status_code(status_of(True, RECORDED_KINDS[kind], None, True))
        for kind in range(OTHER_KIND + 1)
    ],
    dtype=np.int64,
)
"""The status code of a recorded outcome of each kind code whose agent was stopped at the
step limit, whatever the grader would say."""
