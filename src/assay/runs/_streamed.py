"""A stored run's report whose case rows are read from the database as they are drawn.

Its figures are counted by the database (``counted_report``); its rows are a
``StoredRows`` that, each time it is read, streams the run's records joined with their
judgments in dataset order and makes each row's values directly: a report of a million
case-trials is written without a million records, judgments, cases or rows in memory, and
the rows a page does not show are never made. The rows are those ``report_for_run``
makes, value for value (tests/property/test_streamed_rows.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

from assay.errors import StoreError
from assay.grading import (
    GRADERLESS,
    MISSING_REASON,
    RULES_VERSION,
    STATUSES,
    CaseResult,
    Grader,
    error_reason,
    judge_record,
    status_of,
)
from assay.load import PriceTable
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, TrialPolicy
from assay.outcomes import Abstain, Answer, Error
from assay.report import ROW_FIELDS, Brief, CaseRow, JudgeDetail, Report, row_of, row_values
from assay.runs._case_items import CaseAt, Cases, Items
from assay.runs._run_settings import StoredGrader, run_grader
from assay.store import (
    STORED_STATUSES,
    DamagedRow,
    RunInfo,
    RunStore,
    item_damage,
    json_items,
    judgment_of,
    read_case_hashes,
    read_case_ids,
    read_case_index,
    record_of,
    remembered,
    row_failure,
    rows_named,
    stored_outcome,
)

if TYPE_CHECKING:
    from assay._written import WrittenText
    from assay.runs._rendered import Ahead

T = TypeVar("T")


Keep = Callable[[str, bool], bool]
"""Whether a row is wanted, from its status and whether its case is synthetic."""

_MISSING_LABEL = f"{GRADERLESS} v{RULES_VERSION}"
_NO_MEASURES = (None,) * 9
"""Tokens, latency, transcript, traceback, judge, cache, agent counts and trajectory of a
missing case-trial."""


def streamed_report(
    store: RunStore,
    run_id: str,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    prices: PriceTable | None = None,
    whole: bool = False,
) -> Report | None:
    """``report_for_run(store, run_id, …, compact=True)`` with its figures counted by the
    database and its rows read from ``store`` each time they are read (keep the store
    open until the report is rendered, then ``close_rows(report)``); None when some figure
    needs every case-trial graded (then build the report the usual way).

    ``whole``: the rows will be rendered whole (``StoredRows.rendered``, as the JSON,
    HTML and JUnit reports read them): for a large run, a forked process starts making
    the later ones while the figures are counted."""
    # deferred: counting by the database loads numpy, only when a report is streamed;
    # assay.runs._rendered imports this module (the one module cycle left)
    from assay.runs._figures import counted_report
    from assay.runs._rendered import Ahead

    info = store.get_run(run_id)
    grader = run_grader(info)
    ahead = Ahead.start(store, info, grader) if whole else None
    try:
        counted = counted_report(store, info, interval=interval, policy=policy, prices=prices)
        synthetic = counted.synthetic.total if counted and counted.synthetic else 0
        count = counted.total + synthetic if counted is not None else 0
    except BaseException:
        if ahead is not None:
            ahead.close()
        raise
    if counted is None or not count:
        if ahead is not None:
            ahead.close()
        return counted
    rows = StoredRows(store, info, grader, count, ahead)
    return counted.model_copy(update={"cases": rows})


def case_ids_of(store: RunStore, run_id: str) -> list[str] | None:
    """Run ``run_id``'s case ids in dataset order, when it has a case index (a damaged one
    raises the ``StoreError`` that names it)."""
    with rows_named(store.url, run_id), store.engine.connect() as conn:
        index = read_case_index(conn, run_id)
        return None if index is None else read_case_ids(conn, run_id, len(index.codes))


class StoredRows(Sequence[CaseRow]):
    """A stored run's case rows (every case at every trial, in dataset order), read from
    the store each time they are iterated; ``where`` makes only the rows wanted."""

    def __init__(
        self,
        store: RunStore,
        info: RunInfo,
        grader: Grader,
        count: int,
        ahead: Ahead | None = None,
    ) -> None:
        """``grader``: the one the run's records are judged with now (``run_grader``);
        ``count``: how many rows there are (cases times trials); ``ahead``: the later
        rows being made by a forked process, for ``rendered``."""
        self._store = store
        self._info = info
        self._grader = grader
        self._count = count
        self._ahead = ahead

    def close(self) -> None:
        """Stop making the later rows ahead, if that was started and they were not read."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.close()

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> CaseRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseRow]: ...

    def __getitem__(self, index: int | slice) -> CaseRow | list[CaseRow]:
        rows = list(self)  # read whole: the writers iterate instead
        return rows[index]

    def __iter__(self) -> Iterator[CaseRow]:
        return map(row_of, self.values())

    def where(self, keep: Keep) -> Iterator[CaseRow]:
        """The rows ``keep`` wants, in order; the others are not made."""
        return map(row_of, self.made(keep, False))

    def briefs_where(self, keep: Keep) -> Iterator[Brief]:
        """``where(keep)``'s rows as briefs, most read without making the row (nor
        reading its case)."""
        return cast("Iterator[Brief]", self.made(keep, True))

    def rows_at(self, picked: Sequence[Brief]) -> list[CaseRow]:
        """The rows ``picked`` (briefs ``briefs_where`` gave) were told from, in order."""
        if not picked:
            return []
        info, grader, store = self._info, self._grader, self._store
        ids = case_ids_of(store, info.id)
        wanted = {(b.id, b.trial) for b in picked}
        if ids is None:
            return [row_of(v) for v in self._scanned(None) if (v[0], v[2]) in wanted]
        names = {b.id for b in picked}
        where = {case_id: i for i, case_id in enumerate(ids) if case_id in names}
        batches = store.judged_records(
            info.id, grader.name, grader.version, info.trials, len(ids), only=sorted(names)
        )
        found = {(row[1], row[2]): row for batch in batches for row in batch}
        hashes = (cases := self.read_cases(len(ids))).hashes
        items = Items(cases)
        labels: dict[tuple[str, str], str] = {}
        rows: list[CaseRow] = []
        at, case, i, joined = -1, None, -1, None
        try:
            for brief in picked:  # in dataset order, as read
                i, joined = where[brief.id], None
                if at != i or case is None:
                    known = hashes[i] if hashes else None
                    at, case = i, items.case_at(i, known)
                    if case.id != brief.id:
                        raise self._misplaced(case.id, brief.id)
                joined = found.get((brief.id, brief.trial))
                row = _row(case, brief.trial, joined, grader, labels, None)
                assert row is not None  # every row is wanted
                rows.append(row_of(row))
        except ValueError as err:
            raise self._damaged(err, i, ids, joined) from None
        return rows

    def rendered(self, size: int, render: Callable[[list[tuple[Any, ...]]], T]) -> Iterator[T]:
        """``render`` of each ``size`` rows' values in order (the last chunk may hold
        fewer); a large run's in two processes (``assay.runs._rendered``)."""
        # deferred: assay.runs._rendered imports this module (the one module cycle left)
        from assay.runs._rendered import rendered

        ahead, self._ahead = self._ahead, None
        return rendered(self, size, render, ahead)

    def rendered_texts(
        self, size: int, render: Callable[[list[tuple[Any, ...]]], str], joint: str
    ) -> Iterator[str | WrittenText]:
        """``rendered``'s texts, those made by the fork (each after ``joint``) as the
        file it wrote them to (``assay.runs._rendered.rendered_texts``)."""
        # deferred: assay.runs._rendered imports this module (the one module cycle left)
        from assay.runs._rendered import rendered_texts

        ahead, self._ahead = self._ahead, None
        return rendered_texts(self, size, render, joint, ahead)

    @property
    def store(self) -> RunStore:
        return self._store

    @property
    def info(self) -> RunInfo:
        return self._info

    def read_cases(self, count: int, snapshot: str | None = None) -> Cases:
        """The run's ``count`` cases as stored (``snapshot``: their snapshot, when read
        already)."""
        if snapshot is None:
            snapshot = self._store.cases_snapshot(self._info.id)
        with rows_named(self._store.url, self._info.id), self._store.engine.connect() as conn:
            hashes = read_case_hashes(conn, self._info.id, count)
        return Cases(snapshot, hashes, Items.canonical(snapshot, count))

    def case_ids(self) -> list[str] | None:
        """The run's case ids in dataset order, when it has a case index."""
        return case_ids_of(self._store, self._info.id)

    def values(self, keep: Keep | None = None) -> Iterator[tuple[Any, ...]]:
        """Each row's values in ``ROW_FIELDS`` order (those ``keep`` wants)."""
        return self.made(keep, False)

    def made(self, keep: Keep | None, brief: bool) -> Iterator[tuple[Any, ...]]:
        """``values(keep)``, each row a ``Brief`` instead with ``brief``."""
        with self._store.engine.connect() as conn, rows_named(self._store.url, self._info.id):
            index = read_case_index(conn, self._info.id)
            ids = None if index is None else read_case_ids(conn, self._info.id, len(index.codes))
        if index is None or ids is None:
            scanned = self._scanned(keep)
            return map(_brief_of, scanned) if brief else scanned
        synthetic = [index.groups[code][1] for code in index.codes]
        if keep is not None:
            return self._picked(keep, brief, ids, synthetic)
        return self.indexed(ids)

    def _picked(
        self, keep: Keep, brief: bool, ids: list[str], synthetic: list[bool]
    ) -> Iterator[tuple[Any, ...]]:
        """``made`` of the rows ``keep`` wants, for a run with a case index: the records
        of a status it never wants are left in the database (SQLite), and each case-trial
        without a record is told from the run's recorded slots; the cases are read
        only once a row is made whole."""
        import numpy as np

        info, grader, store = self._info, self._grader, self._store
        trials = info.trials
        unwanted = [s for s in STATUSES if not keep(s, True) and not keep(s, False)]
        recorded = np.zeros(len(ids) * trials, dtype=bool)
        recorded[store.recorded_slots(info.id, trials, len(ids))] = True
        missing = iter(np.flatnonzero(~recorded).tolist())
        del recorded
        items: Items | None = None
        hashes: list[str] | None = None
        batches = store.judged_records(
            info.id, grader.name, grader.version, trials, len(ids), leave_out=unwanted
        )
        joined = (row for batch in batches for row in batch)
        labels: dict[tuple[str, str], str] = {}
        at, case, i, found = -1, None, 0, None
        try:
            for slot, found in _in_order(joined, missing, trials):
                i, trial = slot // trials, slot % trials + 1
                case_id = ids[i]
                if found is not None and found[1] != case_id:
                    raise self._misplaced(found[1], case_id)
                status = _told(found)
                if status is not None:
                    if not keep(status, synthetic[i]):
                        continue
                    if brief:
                        told = _brief(case_id, trial, status, found)
                        if told is not None:
                            yield told
                            continue
                if at != i or case is None:
                    if items is None:
                        hashes = (cases := self.read_cases(len(ids))).hashes
                        items = Items(cases)
                    known = hashes[i] if hashes else None
                    at, case = i, items.case_at(i, known)
                    if case.id != case_id:
                        raise self._misplaced(case.id, case_id)
                row = _row(case, trial, found, grader, labels, keep)
                if row is not None:
                    yield _brief_of(row) if brief else row
        except ValueError as err:
            raise self._damaged(err, i, ids, found) from None
        finally:
            batches.close()

    def indexed(
        self, ids: list[str], cases: Cases | None = None, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """``values()`` of a run with a case index, or its rows ``start`` to ``end``
        (a row's index is its case's position times the trials, plus its trial less one):
        each case's stored item read by itself (``Items``) from ``cases`` (read here
        when not given)."""
        info, grader = self._info, self._grader
        trials = info.trials
        end = len(ids) * trials if end is None else end
        cases = cases or self.read_cases(len(ids))
        items, hashes = Items(cases), cases.hashes
        first, last = start // trials, -(-end // trials)
        batches = self._store.judged_records(
            info.id, grader.name, grader.version, trials, last, first=first
        )
        joined = chain.from_iterable(batches)
        labels: dict[tuple[str, str], str] = {}
        ahead = next(joined, None)
        case_at = items.case_at
        i, found = 0, None
        try:
            for i in range(first, last):
                case_id = ids[i]
                found = None
                case = case_at(i, hashes[i] if hashes else None)
                if case.id != case_id:
                    raise self._misplaced(case.id, case_id)
                for trial in range(1, trials + 1):
                    found = None
                    if ahead is not None and ahead[0] == i and ahead[2] == trial:
                        found, ahead = ahead, next(joined, None)
                        if found[1] != case_id:
                            raise self._misplaced(found[1], case_id)
                    if not start <= i * trials + trial - 1 < end:
                        continue
                    row = _row(case, trial, found, grader, labels, None)
                    if row is not None:
                        yield row
        except ValueError as err:
            raise self._damaged(err, i, ids, found) from None
        finally:
            batches.close()

    def _damaged(
        self, err: ValueError, position: int, ids: list[str], found: tuple[Any, ...] | None
    ) -> Exception:
        """The ``StoreError`` of a row that failed with ``err`` as it was made: the record
        or judgment joined as ``found`` when it is what fails, else the run's case at
        ``position`` (``ids``: the case index's ids) when it is; ``err`` itself when
        neither is damaged (not a damaged row: a fault of assay's)."""
        damage = err if isinstance(err, DamagedRow) else _joined_damage(found)
        if damage is None and 0 <= position < len(ids):
            try:
                items = Items(self.read_cases(len(ids)))
                CaseAt(items.at(position), items.text)
            except ValueError as item_err:
                # an item that is not JSON is named by its position alone, as it is when
                # the snapshot is read whole (no case index to give its id)
                known = None if isinstance(item_err, json.JSONDecodeError) else ids[position]
                damage = item_damage(position, {"id": known}, item_err)
        if damage is None:
            return err
        return row_failure(damage.of_run(self._info.id), self._store.url)

    def _misplaced(self, found: str, case_id: str) -> StoreError:
        return StoreError(
            f"the store {self._store.url} holds a record of case {found!r} at the "
            f"position of case {case_id!r} in run {self._info.id}: it was changed outside "
            "assay or is damaged",
            "damaged",
        )

    def _scanned(self, keep: Keep | None) -> Iterator[tuple[Any, ...]]:
        """``values`` of a run stored before the case index: each case read off the
        snapshot of its cases."""
        info, grader = self._info, self._grader
        trials = info.trials
        snapshot = self._store.cases_snapshot(info.id)
        # The snapshot's length bounds its number of cases: records of other cases
        # (there are none) would come after the last case's and be left out.
        batches = self._store.judged_records(
            info.id, grader.name, grader.version, trials, len(snapshot)
        )
        joined = (row for batch in batches for row in batch)
        labels: dict[tuple[str, str], str] = {}
        ahead = next(joined, None)
        i, raw, found = 0, None, None
        try:
            for i, raw in enumerate(json_items(snapshot)):
                case: CaseAt | None = None
                for trial in range(1, trials + 1):
                    found = None
                    if ahead is not None and ahead[0] == i and ahead[2] == trial:
                        found, ahead = ahead, next(joined, None)
                    if keep is not None and case is None and _unwanted(raw, found, keep):
                        continue
                    if case is None:
                        case = CaseAt(raw)
                    if found is not None and found[1] != case.id:
                        raise StoreError(
                            f"the store {self._store.url} holds a record of case "
                            f"{found[1]!r} at the position of case {case.id!r} in run "
                            f"{info.id}: it was changed outside assay or is damaged",
                            "damaged",
                        )
                    row = _row(case, trial, found, grader, labels, keep)
                    if row is not None:
                        yield row
        except ValueError as err:
            damage = err if isinstance(err, DamagedRow) else _joined_damage(found)
            if damage is None:
                try:
                    CaseAt(raw)
                except ValueError as item_err:
                    damage = item_damage(i, raw, item_err)
            if damage is None:
                raise
            raise row_failure(damage.of_run(info.id), self._store.url) from None
        finally:
            batches.close()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StoredRows({self._count} rows of run {self._info.id})"


_STATUS = ROW_FIELDS.index("status")
_REASON = ROW_FIELDS.index("reason")
_CACHED = ROW_FIELDS.index("cached_from")


def _joined_damage(found: tuple[Any, ...] | None) -> DamagedRow | None:
    """The damage of joined record ``found``'s record or judgment, when it has one."""
    if found is None:
        return None
    try:
        record_of(found[1:10])
        if found[10] is not None:
            judgment_of((found[1], found[2], *found[10:]))
    except DamagedRow as err:
        return err
    return None


def _brief_of(values: tuple[Any, ...]) -> Brief:
    return Brief(values[0], values[2], values[_STATUS], values[_REASON], values[_CACHED])


def _in_order(
    joined: Iterator[tuple[Any, ...]], missing: Iterator[int], trials: int
) -> Iterator[tuple[int, tuple[Any, ...] | None]]:
    """(slot, joined record) of each record and (slot, None) of each slot without one,
    in slot order: ``joined`` is in order of position, then trial; ``missing`` too."""
    gap = next(missing, None)
    for found in joined:
        slot = found[0] * trials + found[2] - 1
        while gap is not None and gap < slot:
            yield gap, None
            gap = next(missing, None)
        yield slot, found
    while gap is not None:
        yield gap, None
        gap = next(missing, None)


def _told(found: tuple[Any, ...] | None) -> str | None:
    """A row's status by the status rule when its joined record tells it as it is (the
    case is not made, nor the outcome read): a missing case-trial, an error, or a stored
    verdict on an answer or abstention of the usual shape; None when it cannot be told
    so."""
    if found is None:
        return status_of(False, None, None)
    text = found[3]
    if found[9] is not None or type(text) is not str:
        return None
    if text.startswith(_ERROR):
        return status_of(True, "error", None)
    status = found[10]
    if status in STORED_STATUSES and text.startswith(_JUDGED) and type(found[11]) is str:
        return status_of(True, "answer" if text.startswith(_ANSWERED) else "abstain", status)
    return None


def _usual_measures(found: tuple[Any, ...]) -> bool:
    """Whether a joined record's measures (attempts, latency, tokens, trace id) and its
    judgment's score and labels have the types the store writes, so its row can be made
    without validating them."""
    (_, _, _, _, attempts, latency, tokens_in, tokens_out, trace_id, _) = found[:10]
    return _usual(attempts, latency, tokens_in, tokens_out, trace_id, found[14], found[15])


def _usual(
    attempts: Any,
    latency: Any,
    tokens_in: Any,
    tokens_out: Any,
    trace_id: Any,
    score: Any,
    said: Any,
) -> bool:
    """``_usual_measures`` of the values read off a joined record."""
    return not (
        type(attempts) is not int
        or attempts < 1
        or (latency is not None and type(latency) is not float)
        or (tokens_in is not None and type(tokens_in) is not int)
        or (tokens_out is not None and type(tokens_out) is not int)
        or (trace_id is not None and type(trace_id) is not str)
        or (said is not None and said != "[]")
        or (score is not None and type(score) is not float)
    )


def _brief(case_id: str, trial: int, status: str, found: tuple[Any, ...] | None) -> Brief | None:
    """The brief of a row whose status ``_told`` told, when it is told as plainly (what
    ``_row`` would make of it); None when the row must be made to tell it."""
    if found is None:
        return Brief(case_id, trial, status, MISSING_REASON, None)
    if not _usual_measures(found):
        return None
    if status == "error":
        outcome = stored_outcome(found[3])
        if type(outcome) is not Error:
            return None
        return Brief(case_id, trial, status, error_reason(outcome), None)
    return Brief(case_id, trial, status, found[11], None)


def _unwanted(raw: Any, found: tuple[Any, ...] | None, keep: Keep) -> bool:
    """Whether ``keep`` surely does not want this row, told from the stored case and the
    joined record as they are (the case is not made, nor the outcome read): a missing
    case-trial, an error, or a stored verdict on an answer or abstention of the usual
    shape. False when that cannot be told so (the row is made and asked about)."""
    if type(raw) is not dict:
        return False
    synthetic = raw.get("synthetic")
    if synthetic is not True and synthetic is not False:
        return False
    if found is not None and found[1] != raw.get("id"):
        return False
    status = _told(found)
    return status is not None and not keep(status, synthetic)


_ERROR = ('{"kind":"error",', '{"kind":"error"}')
_ANSWERED = ('{"kind":"answer",', '{"kind":"answer"}')
_JUDGED = (*_ANSWERED, '{"kind":"abstain",', '{"kind":"abstain"}')


def _row(
    case: CaseAt,
    trial: int,
    found: tuple[Any, ...] | None,
    grader: Grader,
    labels: dict[tuple[str, str], str],
    keep: Keep | None,
) -> tuple[Any, ...] | None:
    """The row of ``case`` at ``trial`` (``found``: its joined record, None when missing),
    what ``row_values`` makes of it graded as ``report_for_run`` grades; None when
    ``keep`` does not want it."""
    case_id, part, synthetic, prompt, behavior, fact, rationale, revision = case.head
    if found is None:
        if keep is not None and not keep("missing", synthetic):
            return None
        return (
            case_id,
            part,
            trial,
            synthetic,
            prompt,
            behavior,
            fact,
            rationale,
            None,
            None,
            None,
            None,
            "missing",
            MISSING_REASON,
            _MISSING_LABEL,
            case.hash,
            revision,
            None,
            *_NO_MEASURES,
        )
    (
        _,
        _,
        _,
        text,
        attempts,
        latency,
        tokens_in,
        tokens_out,
        trace_id,
        extra,
        status,
        reason,
        name,
        version,
        score,
        said,
    ) = found
    if (
        extra is not None
        or type(text) is not str
        or not _usual(attempts, latency, tokens_in, tokens_out, trace_id, score, said)
    ):
        return _graded_row(case, trial, found, grader, labels, keep)
    kind, out_fact, out_text, out_reason, raw_error, error = _SHAPES.get(text) or _shape(text)
    if error is not None:
        status, reason, label = "error", error, _MISSING_LABEL
    elif status is None or status not in STORED_STATUSES or type(reason) is not str:
        return _graded_row(case, trial, found, grader, labels, keep)
    else:
        key = (name, version)
        label = labels.get(key)  # type: ignore[assignment]
        if label is None:
            label = labels[key] = f"{name} v{version}"
    if keep is not None and not keep(status, synthetic):
        return None
    judge = None
    if error is None and name == "judge":
        judge = JudgeDetail(score=int(score) if score is not None else None, labels=[])
    return (
        case_id,
        part,
        trial,
        synthetic,
        prompt,
        behavior,
        fact,
        rationale,
        kind,
        out_fact,
        out_text,
        out_reason,
        status,
        reason,
        label,
        case.hash,
        revision,
        raw_error,
        tokens_in,
        tokens_out,
        latency,
        None,
        None,
        judge,
        None,
        None,
        None,
    )


_SHAPES: dict[str, tuple[Any, ...]] = {}
"""The row values of the outcomes stored as the short texts a run repeats (``_shape``)."""


def _shape(text: str) -> tuple[Any, ...]:
    """The row values of the outcome stored as ``text`` (kept in ``_SHAPES``)."""
    return remembered(_SHAPES, text, _shape_of)


def _shape_of(text: str) -> tuple[Any, ...]:
    """The row values of the outcome stored as ``text``: (kind, fact, text, reason, raw
    error, error reason), the last None when it is not an error."""
    outcome = stored_outcome(text)
    kind = type(outcome)
    return (
        outcome.kind,
        outcome.fact if kind is Answer else None,  # type: ignore[union-attr]
        outcome.text if kind is Answer or kind is Abstain else None,  # type: ignore[union-attr]
        outcome.reason if kind is Abstain else None,  # type: ignore[union-attr]
        outcome.raw if kind is Error else None,  # type: ignore[union-attr]
        error_reason(outcome) if kind is Error else None,  # type: ignore[arg-type]
    )


def _graded_row(
    at: CaseAt,
    trial: int,
    found: tuple[Any, ...],
    grader: Grader,
    labels: dict[tuple[str, str], str],
    keep: Keep | None,
) -> tuple[Any, ...] | None:
    """``_row`` of a record that is not of the usual shape, or that has no stored
    judgment: made through the record and judgment models and graded like any other."""
    case = at.case
    record = record_of(found[1:10])
    stored = {}
    if found[10] is not None:
        stored[(case.id, trial)] = judgment_of((case.id, trial, *found[10:]))
    judgment = judge_record(case, record, StoredGrader(stored, grader))
    if keep is not None and not keep(judgment.status, case.synthetic):
        return None
    result = CaseResult(case, trial, record, judgment)
    return row_values(result, {case.id: at.hash}, labels)
