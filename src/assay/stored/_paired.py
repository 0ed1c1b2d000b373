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
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError

from assay.compare import Excluded, SideOutcome
from assay.compare._compare import check_same_judge
from assay.compare._pairing import RunSide
from assay.compare._tally import PairItem, SideFacts, tally_comparison
from assay.metrics import IntervalSetting
from assay.store import RunInfo, RunStore
from assay.store._schema import runs
from assay.stored._figures import counted_usage
from assay.stored._read import run_config
from assay.stored._report import UnavailableGrader, _fallback
from assay.stored._summary import _KIND, _parsed_cases, _scanned_groups, _scanned_ids

if TYPE_CHECKING:
    from assay.compare import Comparison

# One run's case-trials of the dataset's cases in dataset order, then trial: what its
# report would say of each (a null status: the grader's judgment is not stored).
_CASE_TRIALS = """
SELECT rec.position, rec.trial, rec.case_id, {kind}, jd.status, jd.reason, rec.outcome
FROM records rec
LEFT JOIN judgments jd
  ON jd.run_id = rec.run_id AND jd.case_id = rec.case_id AND jd.trial = rec.trial
     AND jd.grader = :grader AND jd.grader_version = :version
WHERE rec.run_id = :run AND rec.trial BETWEEN 1 AND :trials AND rec.position < :cases
ORDER BY rec.position, rec.trial
"""
_BATCH = 5_000
_SYNTHETIC = "synthetic case: never counted with real cases"


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
    cases = _cases(store, b_info)
    if cases is None:
        return None
    ids, slices, synthetic = cases
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
        Excluded(id=case_id, reason=_SYNTHETIC)
        for case_id in sorted({case_id for case_id, s in zip(ids, synthetic, strict=True) if s})
    ]
    with store.engine.connect() as b_conn, store.engine.connect() as c_conn:
        streams = [
            _statuses(conn, info, ids, trials)
            for conn, info in zip((b_conn, c_conn), infos, strict=True)
        ]
        pairs = _pairs(streams[0], streams[1], ids, slices, synthetic, trials)
        try:
            return tally_comparison(facts[0], facts[1], pairs, excluded, _outcome, interval)
        except (_NotPaired, OperationalError):
            return None  # e.g. a SQLite built without its JSON functions


def _judged(info: RunInfo, config: dict[str, Any]) -> RunSide:
    """What the judge check reads of a side: its reference and configuration."""
    return RunSide(
        ref=info.id,
        dataset_name=info.dataset_name,
        dataset_version=info.dataset_version,
        rows=(),
        config=config,
    )


def _cases(store: RunStore, info: RunInfo) -> tuple[list[str], list[str], list[bool]] | None:
    """Each case's id, slice and synthetic flag in dataset order, from the run's snapshot
    of its cases."""
    with store.engine.connect() as conn:
        snapshot = conn.execute(select(runs.c.cases).where(runs.c.id == info.id)).scalar_one()
    scanned = _scanned_groups(snapshot)
    ids = None if scanned is None else _scanned_ids(snapshot, len(scanned[1]))
    if scanned is None or ids is None:
        ids, groups, _ = _parsed_cases(snapshot)
        del snapshot
        return ids, [g[0] for g in groups], [g[1] for g in groups]
    del snapshot
    distinct, codes, _ = scanned
    return ids, [distinct[c][0] for c in codes], [distinct[c][1] for c in codes]


def _statuses(conn: Any, info: RunInfo, ids: Sequence[str], trials: int) -> Iterator[Any]:
    """Each case-trial's (status, detail) in dataset order, then trial: the detail is the
    stored outcome and the judgment's reason when a judgment gave the status."""
    grader = _fallback(info)
    absent = "ungraded" if isinstance(grader, UnavailableGrader) else None
    params = {
        "run": info.id,
        "grader": grader.name,
        "version": grader.version,
        "trials": trials,
        "cases": len(ids),
    }
    query = text(_CASE_TRIALS.format(kind=_KIND[conn.dialect.name]))
    result = conn.execution_options(stream_results=True).execute(query, params)
    rows = _rows(result)
    row = next(rows, None)
    for position, case_id in enumerate(ids):
        for trial in range(1, trials + 1):
            if row is None or (row[0], row[1]) > (position, trial):
                yield "missing", None
                continue
            if row[0] != position or row[1] != trial or row[2] != case_id:
                raise _NotPaired  # records out of step with the run's cases
            if row[3] == "error":
                yield "error", None
            elif row[4] is not None:
                yield row[4], row
            elif absent is not None:
                yield absent, None
            else:
                raise _NotPaired  # only grading can say this answer's status
            row = next(rows, None)
    if row is not None:
        raise _NotPaired


def _rows(result: Any) -> Iterator[Any]:
    while batch := result.fetchmany(_BATCH):
        yield from batch


def _pairs(
    baseline: Iterator[Any],
    candidate: Iterator[Any],
    ids: Sequence[str],
    slices: Sequence[str],
    synthetic: Sequence[bool],
    trials: int,
) -> Iterator[PairItem]:
    for case_id, slice_, apart in zip(ids, slices, synthetic, strict=True):
        for trial in range(1, trials + 1):
            b, b_detail = next(baseline)
            c, c_detail = next(candidate)
            if not apart:
                yield case_id, trial, slice_, b, c, b_detail, c_detail
    for rest in (baseline, candidate):
        next(rest, None)  # each stream's last checks


def _outcome(row: Any, status: str) -> SideOutcome:
    """A listed case-trial's side: its stored outcome, decoded as its report row's is."""
    from assay.outcomes import Answer
    from assay.store._rows import _OUTCOME

    outcome = _OUTCOME.validate_json(row[6])
    fact = outcome.fact if isinstance(outcome, Answer) else None
    return SideOutcome(status=status, outcome=outcome.kind, fact=fact, reason=row[5])
