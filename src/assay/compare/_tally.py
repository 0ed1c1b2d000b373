"""A comparison counted from paired case-trials one at a time: what ``compare_runs``
reports, from a stream of statuses, so two runs of a million case-trials are never held.

Each paired case-trial is a ``PairItem``: (case id, trial, slice, baseline status,
candidate status, baseline detail, candidate detail). The details are whatever the
producer holds for a case-trial (a report row, a stored outcome); ``outcome`` turns one
into a ``SideOutcome``, only for the few case-trials listed as fixed or broken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay._version import __version__
from assay.compare._describe import (
    config_diff,
    plain_words,
    usage_comparison,
    verdict_words,
    worst_case_words,
)
from assay.compare._divergence import Divergence
from assay.compare._model import (
    ChangedCase,
    Comparison,
    Delta,
    Excluded,
    McNemar,
    Moved,
    RunRef,
    SideOutcome,
    SliceDelta,
    WorstCase,
)
from assay.grading import STATUSES
from assay.metrics import (
    UNKNOWN_STATUSES,
    IntervalSetting,
    Rate,
    clustered_delta,
    clustered_rate,
    mcnemar_exact,
    paired_delta_interval,
    rate,
)
from assay.report import UsageSummary

PAIRED = "paired case-trials"
NEWCOMBE = "Newcombe hybrid score, paired (Newcombe 1998, method 10)"
CLUSTERED = (
    "Newcombe hybrid score on the table divided by the design effect, clustered by case "
    "(Rao & Scott 1992)"
)

PairItem = tuple[str, int, str, str, str, Any, Any]

# A pair's cell of the paired table: both passed, fixed (only the candidate passed),
# broken (only the baseline passed), neither.
_CELL = {(True, True): 0, (False, True): 1, (True, False): 2, (False, False): 3}


@dataclass(frozen=True)
class SideFacts:
    """One side of a comparison apart from its case-trials: what ``RunRef`` shows, its
    configuration and its usage."""

    ref: str
    dataset_name: str
    dataset_version: str
    trials: int
    run_id: str | None = None
    config: Mapping[str, Any] | None = None
    usage: UsageSummary | None = None


class _Tally:
    """The paired table of a set of case-trials, per case when trials are clustered."""

    __slots__ = ("broken", "cells", "fixed", "paired", "tables")

    def __init__(self) -> None:
        self.paired = 0
        self.fixed = 0  # failed -> passed, as listed
        self.broken = 0  # passed -> failed, as listed
        self.cells = [0, 0, 0, 0]
        self.tables: dict[str, list[int]] = {}

    def count(self, b: str, c: str, pairs: int) -> None:
        """``pairs`` case-trials went from status ``b`` to ``c``."""
        self.paired += pairs
        self.cells[_CELL[b == "passed", c == "passed"]] += pairs
        if b == "failed" and c == "passed":
            self.fixed += pairs
        elif b == "passed" and c == "failed":
            self.broken += pairs

    def task_success(self, side: int, trials: int, interval: IntervalSetting) -> Rate:
        """Passing case-trials of one side (0 baseline, 1 candidate) over the paired ones,
        its interval clustered by case with several trials."""
        both, fixed, broken, _ = self.cells
        passed = both + (broken if side == 0 else fixed)
        plain = rate(
            passed, self.paired, PAIRED, numerator_name="passing case-trials", interval=interval
        )
        if trials == 1 or not self.paired:
            return plain
        column = 2 if side == 0 else 1
        hits = [t[0] + t[column] for t in self.tables.values()]
        sizes = [t[0] + t[1] + t[2] + t[3] for t in self.tables.values()]
        est = clustered_rate(hits, sizes, interval=interval)
        assert est is not None
        return plain.model_copy(update={"ci": est.ci})

    def delta(self, trials: int, confidence: float) -> Delta:
        """Candidate minus baseline task success with its interval."""
        if not self.paired:
            return Delta(value=None, ci=None, confidence=confidence, method=NEWCOMBE)
        if trials == 1:
            both, fixed, broken, neither = self.cells
            ci = paired_delta_interval(
                both=both, fixed=fixed, broken=broken, neither=neither, confidence=confidence
            )
            value = (fixed - broken) / self.paired
            return Delta(value=value, ci=ci, confidence=confidence, method=NEWCOMBE)
        tables = [(t[0], t[1], t[2], t[3]) for t in self.tables.values()]
        value, ci, _ = clustered_delta(tables, confidence)
        return Delta(value=value, ci=ci, confidence=confidence, method=CLUSTERED)

    def test(self, trials: int) -> McNemar:
        """The exact McNemar test on the discordant pairs (by case, the sign test, with
        several trials)."""
        if not self.paired:
            return McNemar(fixed=0, broken=0, p_value=1.0)
        if trials == 1:
            _, fixed, broken, _ = self.cells
            return McNemar(fixed=fixed, broken=broken, p_value=mcnemar_exact(fixed, broken))
        tables = self.tables.values()
        up = sum(1 for t in tables if t[1] > t[2])
        down = sum(1 for t in tables if t[1] < t[2])
        return McNemar(fixed=up, broken=down, p_value=mcnemar_exact(up, down), unit="cases")


def tally_comparison(
    baseline: SideFacts,
    candidate: SideFacts,
    pairs: Iterable[PairItem],
    excluded: Sequence[Excluded],
    outcome: Callable[[Any, str], SideOutcome],
    interval: IntervalSetting,
    diverged: Callable[[Any, Any], Divergence | None] | None = None,
) -> Comparison:
    """The comparison of the paired case-trials ``pairs`` (in the baseline's order), with
    ``excluded`` listed as left out; see ``compare_runs``. ``diverged`` tells where a
    changed case-trial's two trajectories part, from both sides' details."""
    trials = max(baseline.trials, candidate.trials)
    clustered = trials > 1
    # How many case-trials of each slice went from one status to another, in the order
    # each slice first appears; with several trials, each case's paired table too.
    moves: dict[tuple[str, str, str], int] = {}
    whole_tables: dict[str, list[int]] = {}
    worst_tables: dict[str, list[int]] = {}
    slice_tables: dict[str, dict[str, list[int]]] = {}
    fixed: list[ChangedCase] = []
    broken: list[ChangedCase] = []
    moved: list[Moved] = []
    paired_trials: set[int] = set()
    for case_id, trial, slice_, b, c, b_detail, c_detail in pairs:
        key = (slice_, b, c)
        moves[key] = moves.get(key, 0) + 1
        paired_trials.add(trial)
        if clustered:
            cell = _CELL[b == "passed", c == "passed"]
            _table(whole_tables, case_id)[cell] += 1
            _table(slice_tables.setdefault(slice_, {}), case_id)[cell] += 1
            _table(worst_tables, case_id)[_CELL[_worst(b, c)]] += 1
        if b == c:
            continue
        if b == "failed" and c == "passed":
            fixed.append(
                _changed(case_id, trial, slice_, b_detail, b, c_detail, c, outcome, diverged)
            )
        elif b == "passed" and c == "failed":
            broken.append(
                _changed(case_id, trial, slice_, b_detail, b, c_detail, c, outcome, diverged)
            )
        else:
            moved.append(Moved(id=case_id, trial=trial, slice=slice_, from_=b, to=c))
    odd = {status for _, b, c in moves for status in (b, c)} - _KNOWN
    if odd:
        raise UnknownStatus(f"a paired status is none of the statuses: {sorted(odd)}")
    whole = _Tally()
    whole.tables = whole_tables
    slices: dict[str, _Tally] = {}
    unchanged: dict[str, int] = {}
    for (slice_, b, c), n in moves.items():
        part = slices.get(slice_)
        if part is None:
            part = slices[slice_] = _Tally()
            part.tables = slice_tables.get(slice_, {})
        part.count(b, c, n)
        whole.count(b, c, n)
        if b == c:
            unchanged[b] = unchanged.get(b, 0) + n
    delta, test = whole.delta(trials, interval.confidence), whole.test(trials)
    worst = _Tally()
    worst.tables = worst_tables
    for (_, b, c), n in moves.items():
        b_passes, c_passes = _worst(b, c)
        worst.count("passed" if b_passes else "failed", "passed" if c_passes else "failed", n)
    return Comparison(
        assay_version=__version__,
        baseline=_ref(baseline, whole.task_success(0, trials, interval)),
        candidate=_ref(candidate, whole.task_success(1, trials, interval)),
        paired=whole.paired,
        paired_trials=sorted(paired_trials),
        excluded=list(excluded),
        newly_fixed=list(dict.fromkeys(f.id for f in fixed)),
        newly_broken=list(dict.fromkeys(f.id for f in broken)),
        moved=moved,
        fixed=fixed,
        broken=broken,
        unchanged=unchanged,
        mcnemar=test,
        task_success_delta=delta,
        slices=[_slice(name, part, trials, interval) for name, part in slices.items()],
        config_diff=config_diff(baseline.config or {}, candidate.config or {}),
        usage=usage_comparison(baseline.usage, candidate.usage),
        summary=plain_words(
            test,
            delta,
            whole.paired,
            1 - interval.confidence,
            sum(1 for m in moved if "passed" in (m.from_, m.to)),
            (len(fixed), len(broken)),
        ),
        worst_case=_worst_case(test, worst, moves, trials, interval.confidence),
    )


def _worst(b: str, c: str) -> tuple[bool, bool]:
    """Whether each side counts as passing in the worst case for the candidate: the
    baseline's unknowns passed, the candidate's failed."""
    return b == "passed" or b in UNKNOWN_STATUSES, c == "passed"


def _worst_case(
    test: McNemar,
    worst: _Tally,
    moves: Mapping[tuple[str, str, str], int],
    trials: int,
    confidence: float,
) -> WorstCase | None:
    """The verdict recomputed on ``worst``, the paired table of the worst case."""
    if not worst.paired:
        return None
    alpha = 1 - confidence
    unknown = (
        sum(n for (_, b, _), n in moves.items() if b in UNKNOWN_STATUSES),
        sum(n for (_, _, c), n in moves.items() if c in UNKNOWN_STATUSES),
    )
    worst_test = worst.test(trials)
    verdict = verdict_words(worst_test, alpha)
    survives = verdict == verdict_words(test, alpha)
    return WorstCase(
        unknown_baseline=unknown[0],
        unknown_candidate=unknown[1],
        mcnemar=worst_test,
        delta=worst.delta(trials, confidence),
        verdict=verdict,
        survives=survives,
        summary=worst_case_words(worst_test, alpha, unknown, survives),
    )


class UnknownStatus(ValueError):
    """A paired case-trial's status is none of ``STATUSES`` (a stored judgment changed
    outside assay): it cannot be counted."""


_KNOWN = frozenset(STATUSES)


def _table(tables: dict[str, list[int]], case_id: str) -> list[int]:
    found = tables.get(case_id)
    if found is None:
        found = tables[case_id] = [0, 0, 0, 0]
    return found


def _changed(
    case_id: str,
    trial: int,
    slice_: str,
    b_detail: Any,
    b: str,
    c_detail: Any,
    c: str,
    outcome: Callable[[Any, str], SideOutcome],
    diverged: Callable[[Any, Any], Divergence | None] | None,
) -> ChangedCase:
    return ChangedCase(
        id=case_id,
        trial=trial,
        slice=slice_,
        baseline=outcome(b_detail, b),
        candidate=outcome(c_detail, c),
        divergence=diverged(b_detail, c_detail) if diverged is not None else None,
    )


def _slice(name: str, part: _Tally, trials: int, interval: IntervalSetting) -> SliceDelta:
    delta = part.delta(trials, interval.confidence)
    return SliceDelta(
        slice=name,
        paired=part.paired,
        fixed=part.fixed,
        broken=part.broken,
        baseline=part.task_success(0, trials, interval),
        candidate=part.task_success(1, trials, interval),
        delta=delta,
    )


def _ref(side: SideFacts, rate_: Rate) -> RunRef:
    return RunRef(
        ref=side.ref,
        run_id=side.run_id,
        dataset_name=side.dataset_name,
        dataset_version=side.dataset_version,
        trials=side.trials,
        task_success=rate_,
        config=dict(side.config or {}),
    )
