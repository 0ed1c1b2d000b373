"""The comparison of two stored runs over one dataset version, paired where they are
stored: both runs' case-trials are read in dataset order, then trial, a batch of plain
rows at a time, and joined on their position as they come, so neither run is held as
records, judgments or report rows (two runs of a million case-trials each).

A case-trial's status is the one its report gives: ``missing`` without a record,
``error`` for an error outcome, else the judgment stored by the grader that would judge
it now. When some figure needs more than the store holds (a recorded answer without that
judgment, answers served from the response cache), or the runs differ in their dataset
version or trials (pairing then names each difference), there is no paired comparison
here (None) and the runs' reports are compared instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from itertools import chain
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError

from assay.compare import (
    SYNTHETIC_EXCLUDED,
    Excluded,
    PairItem,
    RunSide,
    SideFacts,
    SideOutcome,
    UnknownStatus,
    check_same_judge,
    tally_comparison,
)
from assay.grading import status_of, status_sql
from assay.metrics import IntervalSetting
from assay.outcomes import Answer
from assay.runs._figures import counted_usage, has_trajectories
from assay.runs._outcomes import outcome_damage
from assay.runs._run_settings import UnavailableGrader, run_config, run_grader
from assay.runs._slots import misplaced_damage, outside_count, slot_damage, trial_damage
from assay.runs._summary import (
    _KIND,
    _parsed_cases,
    _scanned_groups,
    _scanned_ids,
    unknown_status,
)
from assay.store import (
    RunInfo,
    RunStore,
    read_case_ids,
    read_case_index,
    row_failure,
    rows_named,
    runs,
    snapshot_text,
    stored_outcome,
)

if TYPE_CHECKING:
    from assay.compare import Comparison

# One run's case-trials of the dataset's cases in dataset order, then trial (``slot``
# counts them so), with what its report would say of each by the status rule
# (``status_sql``): ``error`` for an error outcome, else the grader's stored judgment
# (null: none is stored).
_CASE_TRIALS = """
SELECT rec.position * :trials + rec.trial - 1 AS slot,
       {status} AS status,
       rec.case_id, jd.reason, rec.outcome
FROM records rec
LEFT JOIN judgments jd
  ON jd.run_id = rec.run_id AND jd.case_id = rec.case_id AND jd.trial = rec.trial
     AND jd.grader = :grader AND jd.grader_version = :version
WHERE rec.run_id = :run AND rec.trial BETWEEN 1 AND :trials AND rec.position < :cases
ORDER BY rec.position, rec.trial
"""
_MISSING = str(status_of(False, None, None))
_BATCH = 5_000


class _NotPaired(Exception):
    """The store holds something only the runs' reports can pair (see the module)."""


def paired_comparison(
    store: RunStore,
    baseline: str,
    candidate: str,
    *,
    matching_only: bool = False,
    across_graders: bool = False,
    interval: IntervalSetting,
) -> Comparison | None:
    """The comparison of stored runs ``baseline`` and ``candidate`` (ids or unique
    prefixes) as ``compare_runs`` makes it from their reports, or None when it must be
    made from the reports (see the module)."""
    del matching_only  # over one dataset version and trial count nothing is left out
    dialect = store.engine.dialect.name
    if dialect not in _KIND:
        return None
    try:
        infos = [store.get_run(ref) for ref in (baseline, candidate)]
    except Exception:
        return None  # the reports' path says what is wrong, as it always has
    graders = [run_grader(i) for i in infos]  # what would judge each run's answers now
    b_info, c_info = infos
    if b_info.dataset_version != c_info.dataset_version or b_info.trials != c_info.trials:
        return None
    if any((i.metadata.get("cache") or {}).get("key_version") is not None for i in infos):
        return None
    configs = [run_config(i) for i in infos]
    if any(config.get("report") == "composite" for config in configs):
        return None
    if not across_graders:
        check_same_judge(*(_judged(i, config) for i, config in zip(infos, configs, strict=True)))
    usages = [counted_usage(store, i) for i in infos]
    if usages[0] is None or usages[1] is None:
        return None
    if any(has_trajectories(store, i.id) for i in infos):
        return None  # where their trajectories part is read off the rows
    for info in infos:
        damage = outcome_damage(store.engine, info.id)
        if damage is not None:
            raise row_failure(damage, store.url)
    ids, slices, synthetic = _cases(store, b_info)
    trials = b_info.trials
    facts = [
        SideFacts(
            ref=i.id,
            run_id=i.id,
            dataset_name=i.dataset_name,
            dataset_version=i.dataset_version,
            trials=trials if ids else 1,
            config=config,
            usage=usage,
        )
        for i, config, usage in zip(infos, configs, usages, strict=True)
    ]
    excluded = [
        Excluded(id=case_id, reason=SYNTHETIC_EXCLUDED)
        for case_id in sorted({case_id for case_id, s in zip(ids, synthetic, strict=True) if s})
    ]
    with store.engine.connect() as conn:
        for info in infos:
            damage = trial_damage(conn, info.id, trials)
            if damage is not None:
                raise row_failure(damage, store.url)
        outside = [outside_count(conn, i.id, len(ids), trials) for i in infos]
    if any(outside):
        damage = _misplaced(store, infos, ids)
        if damage is not None:
            raise row_failure(damage, store.url)
    with store.engine.connect() as b_conn, store.engine.connect() as c_conn:
        try:
            b_side = _Side(b_conn, b_info, graders[0], len(ids), trials)
            c_side = _Side(c_conn, c_info, graders[1], len(ids), trials)
            pairs = _pairs(b_side, c_side, ids, slices, synthetic, trials)
            return tally_comparison(facts[0], facts[1], pairs, excluded, _outcome, interval)
        except UnknownStatus:
            b_grader, c_grader = graders
            damage = unknown_status(store, b_info, b_grader.name, b_grader.version)
            if damage is None:
                damage = unknown_status(store, c_info, c_grader.name, c_grader.version)
            if damage is None:
                raise
            raise row_failure(damage, store.url) from None
        except _NotPaired:
            damage = _misplaced(store, infos, ids)
            if damage is not None:
                raise row_failure(damage, store.url) from None
            return None
        except OperationalError:
            return None  # e.g. a SQLite built without its JSON functions


def _misplaced(store: RunStore, infos: Sequence[RunInfo], ids: list[str]) -> Any:
    """The first damaged record of either run that would leave it unpaired: a trial or
    position that is not a whole number, or not one of the run's case-trials (the
    ``DamagedRow``), else None."""
    with store.engine.connect() as conn:
        for info in infos:
            damage = slot_damage(conn, info.id) or misplaced_damage(conn, info.id, ids, info.trials)
            if damage is not None:
                return damage
    return None


def _judged(info: RunInfo, config: dict[str, Any]) -> RunSide:
    """What the judge check reads of a side: its reference and configuration."""
    return RunSide(
        ref=info.id,
        dataset_name=info.dataset_name,
        dataset_version=info.dataset_version,
        rows=(),
        config=config,
    )


def _cases(store: RunStore, info: RunInfo) -> tuple[list[str], list[str], list[bool]]:
    """Each case's id, slice and synthetic flag in dataset order, from the run's case
    index, or its snapshot of its cases when it was stored before the index existed."""
    with store.engine.connect() as conn, rows_named(store.url, info.id):
        indexed = read_case_index(conn, info.id)
        if indexed is not None:
            listed = [indexed.groups[code] for code in indexed.codes]
            listed_ids = read_case_ids(conn, info.id, len(listed))
            return listed_ids, [g[0] for g in listed], [g[1] for g in listed]
        snapshot = snapshot_text(
            conn.execute(select(runs.c.cases).where(runs.c.id == info.id)).scalar_one()
        )
    scanned = _scanned_groups(snapshot)
    ids = None if scanned is None else _scanned_ids(snapshot, len(scanned[1]))
    if scanned is None or ids is None:
        with rows_named(store.url, info.id):
            ids, groups, _ = _parsed_cases(snapshot)
        del snapshot
        return ids, [g[0] for g in groups], [g[1] for g in groups]
    del snapshot
    distinct, codes, _ = scanned
    return ids, [distinct[c][0] for c in codes], [distinct[c][1] for c in codes]


class _Side:
    """One run's case-trials as stored, read in dataset order, then trial, a batch at a
    time (``row`` is the next one not yet paired)."""

    __slots__ = ("absent", "row", "rows")

    def __init__(self, conn: Any, info: RunInfo, grader: Any, cases: int, trials: int) -> None:
        self.absent = "ungraded" if isinstance(grader, UnavailableGrader) else None
        params = {
            "run": info.id,
            "grader": grader.name,
            "version": grader.version,
            "trials": trials,
            "cases": cases,
        }
        status = status_sql(_KIND[conn.dialect.name], "jd.status")
        query = text(_CASE_TRIALS.format(status=status))
        result = conn.execution_options(stream_results=True).execute(query, params)
        self.rows = _rows(result)
        self.row: Any = next(self.rows, None)

    def take(self, slot: int, case_id: str) -> tuple[str, Any]:
        """The status of the case-trial at ``slot`` and its stored row."""
        row = self.row
        if row is None or row[0] > slot:
            return _MISSING, None
        if row[0] != slot or row[2] != case_id:
            raise _NotPaired  # records out of step with the run's cases
        self.row = next(self.rows, None)
        if row[1] is not None:
            return row[1], row
        if self.absent is None:
            raise _NotPaired  # only grading can say this answer's status
        return self.absent, None


def _rows(result: Any) -> Iterator[Any]:
    return chain.from_iterable(iter(partial(result.fetchmany, _BATCH), []))


def _pairs(
    baseline: _Side,
    candidate: _Side,
    ids: Sequence[str],
    slices: Sequence[str],
    synthetic: Sequence[bool],
    trials: int,
) -> Iterator[PairItem]:
    """Both runs' case-trials side by side in dataset order, then trial, synthetic cases
    left out. The usual case-trial (the next row of each run is the one asked about, with
    a status) is told here; ``take`` tells every other."""
    b_take, c_take = baseline.take, candidate.take
    b_rows, c_rows = baseline.rows, candidate.rows
    b_row, c_row = baseline.row, candidate.row
    slot = -1
    for case_id, slice_, apart in zip(ids, slices, synthetic, strict=True):
        for trial in range(1, trials + 1):
            slot += 1
            if b_row is not None and b_row[0] == slot and b_row[1] and b_row[2] == case_id:
                b, b_detail = b_row[1], b_row
                b_row = next(b_rows, None)
            else:
                baseline.row = b_row
                b, b_detail = b_take(slot, case_id)
                b_row = baseline.row
            if c_row is not None and c_row[0] == slot and c_row[1] and c_row[2] == case_id:
                c, c_detail = c_row[1], c_row
                c_row = next(c_rows, None)
            else:
                candidate.row = c_row
                c, c_detail = c_take(slot, case_id)
                c_row = candidate.row
            if not apart:
                yield case_id, trial, slice_, b, c, b_detail, c_detail
    if b_row is not None or c_row is not None:
        raise _NotPaired  # records the run's cases do not account for


_SIDES: dict[tuple[str, str, str], SideOutcome] = {}


def _outcome(row: Any, status: str) -> SideOutcome:
    """A listed case-trial's side: its stored outcome, decoded as its report row's is.
    Sides are immutable: the many alike (one fact, one reason) share one instance."""
    key = (status, row[4], row[3])
    found = _SIDES.get(key)
    if found is None:
        outcome = stored_outcome(row[4])
        fact = outcome.fact if isinstance(outcome, Answer) else None
        found = SideOutcome(status=status, outcome=outcome.kind, fact=fact, reason=row[3])
        if len(_SIDES) >= 4_096:
            _SIDES.clear()
        _SIDES[key] = found
    return found
