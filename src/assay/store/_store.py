"""``RunStore``: runs, their records, judgments and spans in one SQL database."""

from __future__ import annotations

import errno
import json
import re
import sqlite3
from collections.abc import Generator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, Select, func, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from assay.cases import Case, Dataset, canonical_json
from assay.errors import AssayInputError, StoreError, did_you_mean
from assay.grading import Judgment, repeat_of
from assay.outcomes import Record, Span, SpanRow, span_row
from assay.store._case_index import case_index_row
from assay.store._claims import RunClaim, claim_run
from assay.store._damage import DamagedRow, run_damage
from assay.store._dump import dump
from assay.store._failures import guarded, store_failure
from assay.store._info import NAME_KEY, TAGS_KEY, RunInfo
from assay.store._insert import insert_rows
from assay.store._reserve import hold, release, reserve_path
from assay.store._rows import (
    JUDGMENT_COLUMNS,
    RECORD_COLUMNS,
    SharedTexts,
    case_of_item,
    iso_time,
    json_items,
    judgment_of,
    judgment_values,
    record,
    record_of,
    run_info,
    snapshot_text,
    span,
    span_values,
)
from assay.store._schema import case_index, judgments, records, runs, spans

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# Rows fetched from the database at a time when a run's records or judgments are read.
_READ_BATCH = 5_000
_JUDGMENT_COLUMNS = [judgments.c[name] for name in JUDGMENT_COLUMNS]
_JUDGED_RECORDS = f"""
SELECT rec.position, {", ".join(f"rec.{name}" for name in RECORD_COLUMNS)},
       jd.status, jd.reason, jd.grader, jd.grader_version, jd.score, jd.labels
FROM records rec
LEFT JOIN judgments jd
  ON jd.run_id = rec.run_id AND jd.case_id = rec.case_id AND jd.trial = rec.trial
     AND jd.grader = :grader AND jd.grader_version = :version
WHERE rec.run_id = :run AND rec.trial BETWEEN 1 AND :trials
  AND rec.position >= :first AND rec.position < :cases
"""
_IN_ORDER = "ORDER BY rec.position, rec.trial"

# A joined row whose status is told as it is stored (``_told`` in assay.runs._streamed):
# no extra data, a stored verdict with a reason, on an answer or an abstention.
_TOLD_AS_STORED = """
  AND NOT (jd.status IN ({statuses}) AND rec.extra IS NULL AND typeof(jd.reason) = 'text'
           AND (substr(rec.outcome, 1, 17) IN ('{{"kind":"answer",', '{{"kind":"answer"}}')
                OR substr(rec.outcome, 1, 18) IN ('{{"kind":"abstain",', '{{"kind":"abstain"}}')))
"""

_RECORDED_SLOTS = """
SELECT group_concat(position * :trials + trial - 1)
FROM records
WHERE run_id = :run AND trial BETWEEN 1 AND :trials AND position >= 0 AND position < :cases
"""


def _info_query() -> Select[Any]:
    """The runs' columns ``run_info`` reads: every one but the cases, which are read only
    where they are used (a million cases' snapshot is hundreds of megabytes)."""
    return select(*(c for c in runs.c if c.name != "cases"))


# ``latest`` is the newest run, ``latest~1`` the one before it, and so on.
_LATEST = re.compile(r"latest(?:~(?P<back>\d{1,6}))?")


class RunStore:
    """Stored runs. Open one with ``open_store``; close it with ``close()``.

    Records are unique per (run, case, trial): adding one twice raises. ``records`` come
    back in dataset order, then trial. A database failure (a damaged file, a full disk, a
    read-only store) raises ``StoreError``.
    """

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.url = url
        self._positions: dict[str, dict[str, int]] = {}
        self._trials: dict[str, int] = {}
        self._datasets: dict[str, Dataset] = {}  # a run's cases never change once stored

    # -- runs -------------------------------------------------------------------------
    @guarded
    def create_run(self, info: RunInfo, cases: Sequence[Case] | Dataset = ()) -> None:
        """Store a new run and the cases it runs (in order, as canonical records); given
        as a ``Dataset``, that very dataset is kept for the run (its version and case
        hashes already computed are not computed again)."""
        dataset = cases if isinstance(cases, Dataset) else None
        cases = dataset.cases if dataset is not None else tuple(cases)
        kept = dataset or Dataset(name=info.dataset_name, cases=cases)
        row = {
            "id": info.id,
            "started_at": iso_time(info.started_at),
            "ended_at": iso_time(info.ended_at),
            "status": info.status,
            "suite_path": info.suite_path,
            "suite": dump(info.suite),
            "dataset_name": info.dataset_name,
            "dataset_version": info.dataset_version,
            "cases": (
                dataset.cases_json()
                if dataset is not None
                else canonical_json([c.model_dump(mode="json") for c in cases])
            ),
            "target": dump(info.target),
            "target_hash": info.target_hash,
            "graders": dump(info.graders),
            "trials": info.trials,
            "trial_policy": info.trial_policy,
            "assay_version": info.assay_version,
            "git_commit": info.git_commit,
            "packages": dump(info.packages),
            "summary": dump(info.summary) if info.summary is not None else None,
            "metadata": dump(info.metadata),
        }
        with self.engine.begin() as conn:
            conn.execute(runs.insert(), row)
            conn.execute(case_index.insert(), case_index_row(info.id, cases, kept.hashes_in_order))
        self._datasets[info.id] = kept

    @guarded
    def set_status(self, run_id: str, status: str) -> None:
        """Mark a run's status without ending it (a resumed run is ``running`` again)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(runs).where(runs.c.id == run_id).values(status=status, ended_at=None)
            )

    @guarded
    def finish_run(self, run_id: str, status: str, summary: dict[str, Any] | None = None) -> None:
        """Record how a run ended, when, and its headline figures."""
        values: dict[str, Any] = {"status": status, "ended_at": iso_time(datetime.now(UTC))}
        if summary is not None:
            values["summary"] = dump(summary)
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(**values))

    def _resolve(self, run_id: str) -> str:
        latest = _LATEST.fullmatch(run_id)
        if latest is not None:
            return self._nth_newest(int(latest["back"] or 0), run_id)
        with self.engine.connect() as conn:
            found = conn.execute(
                select(runs.c.id).where(runs.c.id.startswith(run_id, autoescape=True))
            ).scalars()
            ids = [str(i) for i in found]
            if run_id in ids:
                return run_id
            if len(ids) == 1:
                return ids[0]
            if len(ids) > 1:
                raise AssayInputError(
                    f"run id '{run_id}' is ambiguous: it starts {len(ids)} runs "
                    f"({', '.join(sorted(ids)[:5])}); give more characters"
                )
            every = [str(i) for i in conn.execute(select(runs.c.id)).scalars()]
        named = self._named(run_id)
        if named is not None:
            return named
        raise AssayInputError(
            f"no run '{run_id}' in the store {self.url}{did_you_mean(run_id, every)}; "
            "`assay runs` lists the stored runs"
        )

    def _nth_newest(self, back: int, asked: str) -> str:
        with self.engine.connect() as conn:
            found = conn.execute(
                select(runs.c.id)
                .order_by(runs.c.started_at.desc(), runs.c.id.desc())
                .offset(back)
                .limit(1)
            ).scalar()
            total = conn.execute(select(func.count()).select_from(runs)).scalar() or 0
        if found is None:
            raise AssayInputError(
                f"{asked}: the store {self.url} holds {total} run{'s' if total != 1 else ''}"
                + ("" if total == 0 else f"; latest~{total - 1} is the oldest")
            )
        return str(found)

    def _named(self, name: str) -> str | None:
        """The run named ``name`` (``assay run --name``), if any."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(runs.c.id, runs.c.metadata).where(
                    runs.c.metadata.contains(name, autoescape=True)
                )
            ).all()
        for run_id, metadata in rows:
            try:
                named = (json.loads(metadata) if metadata else {}).get(NAME_KEY)
            except (ValueError, AttributeError) as err:
                raise run_damage({"id": run_id, "metadata": metadata}, err) from None
            if named == name:
                return str(run_id)
        return None

    @guarded
    def check_new_name(self, name: str) -> None:
        """Refuse ``name`` for a new run: not a valid name, ``latest``, or taken."""
        if not _TAG.fullmatch(name) or _LATEST.fullmatch(name):
            raise AssayInputError(
                f"run name {name!r}: a name is 1 to 64 letters, digits, '_', '.' or '-', "
                "starting with a letter or a digit, and not 'latest' (e.g. nightly-0412)"
            )
        taken = self._named(name)
        if taken is not None:
            raise AssayInputError(
                f"run name {name!r} is taken by run {taken}; choose another name "
                f"(or `assay runs delete {name}` first)"
            )

    @guarded
    def delete_run(self, run_id: str) -> RunInfo:
        """Delete one run: its records, judgments, spans and row; nothing else is touched.
        Refused (``AssayInputError``) while another process runs or resumes it."""
        info = self.get_run(run_id)
        claim = self.claim(info.id)
        try:
            with self.engine.begin() as conn:
                for table in (spans, judgments, records, case_index):
                    conn.execute(table.delete().where(table.c.run_id == info.id))
                conn.execute(runs.delete().where(runs.c.id == info.id))
        finally:
            claim.release()
        return info

    @guarded
    def get_run(self, run_id: str) -> RunInfo:
        """The run with this id (or unique id prefix)."""
        full = self._resolve(run_id)
        with self.engine.connect() as conn:
            row = conn.execute(_info_query().where(runs.c.id == full)).mappings().one()
        return run_info(row)

    @guarded
    def list_runs(self) -> list[RunInfo]:
        """Every stored run, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                _info_query().order_by(runs.c.started_at.desc(), runs.c.id.desc())
            ).mappings()
            return [run_info(r) for r in rows]

    # -- tags -------------------------------------------------------------------------
    def tag_run(self, run_id: str, name: str) -> str | None:
        """Tag a run ``name`` (e.g. ``baseline``). A tag names one run per suite: when
        another run of the same suite had it, it moves, and that run's id is returned."""
        check_tag(name)
        info = self.get_run(run_id)
        if info.suite_name is None:
            raise AssayInputError(
                f"run {info.id} was not started from a suite file, so it belongs to no suite "
                "and cannot hold a suite's tag"
            )
        moved_from = None
        with self.engine.begin() as conn:
            for other in self._suite_runs(conn, info.suite_name):
                if other.id != info.id and name in other.tags:
                    self._write_tags(conn, other, [t for t in other.tags if t != name])
                    moved_from = other.id
            if name not in info.tags:
                self._write_tags(conn, info, [*info.tags, name])
        return moved_from

    def untag_run(self, run_id: str, name: str) -> bool:
        """Remove tag ``name`` from a run; False when the run did not have it."""
        info = self.get_run(run_id)
        if name not in info.tags:
            return False
        with self.engine.begin() as conn:
            self._write_tags(conn, info, [t for t in info.tags if t != name])
        return True

    def _suite_runs(self, conn: Any, suite: str) -> list[RunInfo]:
        rows = conn.execute(_info_query()).mappings()
        return [info for info in map(run_info, rows) if info.suite_name == suite]

    def _write_tags(self, conn: Any, info: RunInfo, tags: list[str]) -> None:
        metadata = {k: v for k, v in info.metadata.items() if k != TAGS_KEY}
        if tags:
            metadata[TAGS_KEY] = tags
        conn.execute(update(runs).where(runs.c.id == info.id).values(metadata=dump(metadata)))

    @guarded
    def load_dataset(self, run_id: str) -> Dataset:
        """The cases exactly as the run ran them, in order."""
        full = self._resolve(run_id)
        if full not in self._datasets:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(runs.c.dataset_name, runs.c.cases).where(runs.c.id == full)
                ).one()
            try:
                text = snapshot_text(row.cases)
                cases = tuple(case_of_item(i, c) for i, c in enumerate(json_items(text)))
            except DamagedRow as err:
                raise err.of_run(full) from None
            self._datasets[full] = Dataset(name=row.dataset_name, cases=cases)
        return self._datasets[full]

    @guarded
    def cases_snapshot(self, run_id: str) -> str:
        """The JSON array of the cases as the run ran them, as stored (each case's fields
        all present, keys sorted): for reading a large run's cases one at a time
        (``json_items``) instead of all at once (``load_dataset``)."""
        full = self._resolve(run_id)
        with self.engine.connect() as conn:
            found = conn.execute(select(runs.c.cases).where(runs.c.id == full)).scalar_one()
        try:
            return snapshot_text(found)
        except DamagedRow as err:
            raise err.of_run(full) from None

    # -- records ----------------------------------------------------------------------
    def _position_map(self, run_id: str) -> dict[str, int]:
        if run_id not in self._positions:
            ids = self.load_dataset(run_id).ids
            self._positions[run_id] = {case_id: i for i, case_id in enumerate(ids)}
        return self._positions[run_id]

    def _check_trials(self, run_id: str, batch: Sequence[Record] | Sequence[Judgment]) -> None:
        """Refuse a (case, trial) whose trial is not one of the run's: every report of the
        run counts trials 1 to its trial count, so such a record would never be counted."""
        if run_id not in self._trials:
            self._trials[run_id] = self.get_run(run_id).trials
        most = self._trials[run_id]
        beyond = [(r.case_id, r.trial) for r in batch if not 1 <= r.trial <= most]
        if beyond:
            shown = ", ".join(f"{case} (trial {trial})" for case, trial in beyond[:5])
            more = f" and {len(beyond) - 5} more" if len(beyond) > 5 else ""
            raise AssayInputError(
                f"run {run_id} has {most} trial(s) a case; nothing was stored for "
                f"{shown}{more}: number each case's trials from 1 to {most}"
            )

    @guarded
    def add_records(self, run_id: str, batch: Sequence[Record]) -> None:
        """Store records in one transaction; a (case, trial) already stored raises, a
        trial outside 1 to the run's trial count raises ``AssayInputError`` (nothing is
        stored)."""
        if not batch:
            return
        with self.engine.begin() as conn:
            insert_rows(conn, records, self._record_values(run_id, batch))

    @guarded
    def add_results(self, run_id: str, batch: Sequence[Record], judged: Sequence[Judgment]) -> None:
        """Store records and their judgments in one transaction."""
        if not batch and not judged:
            return
        positions = self._position_map(run_id)
        self._check_trials(run_id, judged)
        with self.engine.begin() as conn:
            if batch:
                insert_rows(conn, records, self._record_values(run_id, batch))
            if judged:
                insert_rows(conn, judgments, judgment_values(run_id, judged, positions))

    @guarded
    def rejudge(self, run_id: str, batch: Sequence[Record], judged: Sequence[Judgment]) -> None:
        """In one transaction: give stored records the ``extra`` of ``batch`` (their
        outcome and every other column stay as stored) and put each judgment of
        ``judged`` (with its grader's repeats) in place of the one its grader made on
        that case-trial."""
        if not batch and not judged:
            return
        positions = self._position_map(run_id)
        self._check_trials(run_id, judged)
        with self.engine.begin() as conn:
            for r in batch:
                conn.execute(
                    update(records)
                    .where(
                        records.c.run_id == run_id,
                        records.c.case_id == r.case_id,
                        records.c.trial == r.trial,
                    )
                    .values(extra=dump(r.extra) if r.extra else None)
                )
            for j in judged:
                grader = repeat_of(j.grader)
                named = j.grader if grader is None else grader[0]
                conn.execute(
                    judgments.delete().where(
                        judgments.c.run_id == run_id,
                        judgments.c.case_id == j.case_id,
                        judgments.c.trial == j.trial,
                        (judgments.c.grader == named)
                        | judgments.c.grader.startswith(f"{named}#", autoescape=True),
                    )
                )
            if judged:
                insert_rows(conn, judgments, judgment_values(run_id, judged, positions))

    def _record_values(self, run_id: str, batch: Sequence[Record]) -> list[tuple[Any, ...]]:
        """The records table's values of each record, in its column order."""
        positions = self._position_map(run_id)
        self._check_trials(run_id, batch)
        last = len(positions)
        rows = []
        for r in batch:
            usage = r.usage
            rows.append(
                (
                    run_id,
                    r.case_id,
                    r.trial,
                    positions.get(r.case_id, last),
                    r.outcome.model_dump_json(exclude_none=True),
                    r.attempts,
                    r.latency_ms,
                    usage.input_tokens if usage else None,
                    usage.output_tokens if usage else None,
                    dump(r.extra) if r.extra else None,
                    r.trace_id,
                    r.outcome.kind,
                )
            )
        return rows

    @guarded
    def records(self, run_id: str) -> list[Record]:
        """The run's records in dataset order, then trial."""
        full = self._resolve(run_id)
        columns = [records.c[name] for name in RECORD_COLUMNS]
        query = (
            select(*columns)
            .where(records.c.run_id == full)
            .order_by(records.c.position, records.c.trial)
        )
        with self.engine.connect() as conn:
            rows = conn.execution_options(yield_per=_READ_BATCH).execute(query)
            try:
                return [record_of(row) for row in rows]
            except DamagedRow as err:
                raise err.of_run(full) from None

    def judged_records(
        self,
        run_id: str,
        grader: str,
        version: str,
        trials: int,
        cases: int,
        leave_out: Sequence[str] = (),
        only: Sequence[str] | None = None,
        first: int = 0,
    ) -> Generator[list[tuple[Any, ...]]]:
        """The run's records of trials 1 to ``trials`` at dataset positions below
        ``cases``, each with the judgment ``grader`` at ``version`` made on it, ordered by
        position, then trial, in batches of plain tuples (a run of a million case-trials is
        read without holding them): ``(position, *RECORD_COLUMNS values, status, reason,
        grader, grader_version, score, labels)``, the judgment's six None when it has none.

        On SQLite, the records with a stored verdict of a status in ``leave_out`` on an
        answer or abstention of the usual shape (no extra data, a reason) are left out:
        ``recorded_slots`` tells them from the case-trials without a record. With
        ``only``, the records of those cases alone; with ``first``, those at positions
        from ``first`` on.

        Read through one connection held until the batches are exhausted or closed."""
        full = self._resolve(run_id)
        sql = _JUDGED_RECORDS
        params: dict[str, Any] = {
            "run": full,
            "grader": grader,
            "version": version,
            "trials": trials,
            "cases": cases,
            "first": max(first, 0),
        }
        if leave_out and self.engine.dialect.name == "sqlite":
            names = [f":out{i}" for i in range(len(leave_out))]
            sql += _TOLD_AS_STORED.format(statuses=", ".join(names))
            params.update({name[1:]: status for name, status in zip(names, leave_out, strict=True)})
        if only is not None:
            names = [f":only{i}" for i in range(len(only))]
            sql += f"  AND rec.case_id IN ({', '.join(names) or 'NULL'})\n"
            params.update({name[1:]: case_id for name, case_id in zip(names, only, strict=True)})
        sql += _IN_ORDER
        query = text(sql)
        try:
            with self.engine.connect() as conn:
                if self.engine.dialect.name == "sqlite":
                    # the driver's own cursor: its rows are tuples already
                    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
                    try:
                        cursor.execute(sql, params)
                        while found := cursor.fetchmany(_READ_BATCH):
                            yield list(found)
                    except sqlite3.Error as err:
                        failure = DBAPIError(sql, params, err)
                        raise store_failure(failure, self.url) from None
                    finally:
                        cursor.close()
                    return
                rows = conn.execution_options(stream_results=True).execute(query, params)
                while batch := rows.fetchmany(_READ_BATCH):
                    yield [tuple(row) for row in batch]
        except IntegrityError:
            raise
        except DBAPIError as err:
            raise store_failure(err, self.url) from None

    @guarded
    def recorded_slots(self, run_id: str, trials: int, cases: int) -> NDArray[np.int64]:
        """Which case-trials of the run have a record, each as its slot ``position *
        trials + trial - 1`` (trials 1 to ``trials``, positions below ``cases``), in no
        particular order."""
        import numpy as np  # loaded only here: every command opens a store

        params = {"run": self._resolve(run_id), "trials": trials, "cases": cases}
        with self.engine.connect() as conn:
            if self.engine.dialect.name == "sqlite":
                packed = conn.execute(text(_RECORDED_SLOTS), params).scalar()
                return np.fromstring(packed or "", dtype=np.int64, sep=",")
            query = text(_RECORDED_SLOTS.replace("group_concat(", "(", 1))
            return np.array(conn.execute(query, params).scalars().all(), dtype=np.int64)

    @guarded
    def case_records(self, case_id: str) -> list[tuple[str, Record]]:
        """One case's records in every stored run, as (run id, record): newest run
        first, then trial (read through the ``records_by_case`` index)."""
        query = (
            select(records)
            .join(runs, runs.c.id == records.c.run_id)
            .where(records.c.case_id == case_id)
            .order_by(runs.c.started_at.desc(), records.c.run_id.desc(), records.c.trial)
        )
        found = []
        with self.engine.connect() as conn:
            for row in conn.execute(query).mappings():
                try:
                    found.append((str(row["run_id"]), record(row)))
                except DamagedRow as err:
                    raise err.of_run(str(row["run_id"])) from None
        return found

    @guarded
    def recorded_keys(self, run_id: str) -> set[tuple[str, int]]:
        """The (case, trial) pairs already recorded for a run."""
        query = select(records.c.case_id, records.c.trial).where(records.c.run_id == run_id)
        with self.engine.connect() as conn:
            return {(row.case_id, row.trial) for row in conn.execute(query)}

    def trace_links(self, trace_ids: Sequence[str]) -> dict[str, tuple[str, str, int]]:
        """Trace id → (run id, case id, trial) of the records that carry these trace ids."""
        if not trace_ids:
            return {}
        query = select(records.c.trace_id, records.c.run_id, records.c.case_id, records.c.trial)
        with self.engine.connect() as conn:
            rows = conn.execute(query.where(records.c.trace_id.in_(list(trace_ids))))
            return {str(r.trace_id): (str(r.run_id), str(r.case_id), int(r.trial)) for r in rows}

    @guarded
    def count_records(self, run_id: str) -> int:
        """How many records a run has."""
        query = select(func.count()).select_from(records).where(records.c.run_id == run_id)
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    # -- judgments and spans ----------------------------------------------------------
    @guarded
    def add_judgments(self, run_id: str, batch: Sequence[Judgment]) -> None:
        """Store judgments (one per case, trial and grader); a trial outside 1 to the
        run's trial count raises ``AssayInputError`` (nothing is stored)."""
        if not batch:
            return
        positions = self._position_map(run_id)
        self._check_trials(run_id, batch)
        with self.engine.begin() as conn:
            insert_rows(conn, judgments, judgment_values(run_id, batch, positions))

    @guarded
    def judgments(self, run_id: str) -> list[Judgment]:
        """The run's judgments, in dataset order, then trial; a repeated judge's repeats
        are left out (``repeat_judgments``): only its verdicts."""
        full = self._resolve(run_id)
        positions = self._position_map(full)
        found = self._read_judgments(
            select(*_JUDGMENT_COLUMNS).where(judgments.c.run_id == full), full
        )
        kept = [j for j in found if repeat_of(j.grader) is None]
        return sorted(kept, key=lambda j: (positions.get(j.case_id, -1), j.trial, j.grader))

    @guarded
    def repeat_judgments(
        self, run_id: str, grader: str, version: str
    ) -> dict[tuple[str, int], list[Judgment]]:
        """Every repeat grader ``grader`` at ``version`` kept of its judgment on the run's
        case-trials (a judge asked several times about each answer), by (case id, trial),
        each in repeat order; the case-trials judged once have none."""
        full = self._resolve(run_id)
        query = select(*_JUDGMENT_COLUMNS).where(
            judgments.c.run_id == full,
            judgments.c.grader.startswith(f"{grader}#", autoescape=True),
            judgments.c.grader_version == version,
        )
        found: dict[tuple[str, int], list[tuple[int, Judgment]]] = {}
        for j in self._read_judgments(query, full):
            repeat = repeat_of(j.grader)
            if repeat is not None and repeat[0] == grader:
                found.setdefault((j.case_id, j.trial), []).append((repeat[1], j))
        return {
            key: [j for _, j in sorted(each, key=lambda p: p[0])] for key, each in found.items()
        }

    @guarded
    def graders_judgments(
        self, run_id: str, grader: str, version: str
    ) -> dict[tuple[str, int], Judgment]:
        """The judgments grader ``grader`` at ``version`` made on the run's case-trials,
        by (case id, trial), in no order."""
        full = self._resolve(run_id)
        query = select(*_JUDGMENT_COLUMNS).where(
            judgments.c.run_id == full,
            judgments.c.grader == grader,
            judgments.c.grader_version == version,
        )
        return {(j.case_id, j.trial): j for j in self._read_judgments(query, full)}

    def _read_judgments(self, query: Any, run_id: str) -> list[Judgment]:
        shared = SharedTexts()
        with self.engine.connect() as conn:
            rows = conn.execution_options(yield_per=_READ_BATCH).execute(query)
            try:
                return [
                    judgment_of((c, t, shared(s), shared(r), shared(g), shared(v), score, labels))
                    for c, t, s, r, g, v, score, labels in rows
                ]
            except DamagedRow as err:
                raise err.of_run(run_id) from None

    @guarded
    def add_spans(self, run_id: str, batch: Sequence[Span]) -> None:
        """Store spans of the run's request traces."""
        self.add_span_rows(run_id, [span_row(s) for s in batch])

    @guarded
    def add_span_rows(self, run_id: str, batch: Sequence[SpanRow]) -> None:
        """Store spans given as rows (what a run's tracer writes)."""
        if not batch:
            return
        with self.engine.begin() as conn:
            insert_rows(conn, spans, span_values(run_id, batch))

    @guarded
    def spans(
        self, run_id: str, case_id: str | None = None, trial: int | None = None
    ) -> list[Span]:
        """The run's spans (optionally of one case, and trial), by start time."""
        full = self._resolve(run_id)
        query = select(spans).where(spans.c.run_id == full)
        if case_id is not None:
            query = query.where(spans.c.case_id == case_id)
        if trial is not None:
            query = query.where(spans.c.trial == trial)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(spans.c.start_ns, spans.c.span_id)).mappings()
            return [span(row) for row in rows]

    # -- claims and room to record the end of a run on a full disk --------------------
    def claim(self, run_id: str) -> RunClaim:
        """Claim ``run_id`` for this process until ``release()`` (see ``_claims``): while
        held, another process's claim on it raises ``AssayInputError``."""
        try:
            return claim_run(self.engine, run_id)
        except OSError as err:
            raise StoreError(
                f"the store {self.url} cannot hold a claim on run {run_id}: {err.strerror} "
                f"({err.filename}); a run needs a store it can write",
                "read_only" if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM) else "failed",
            ) from None

    # --  ---------------------------------
    def hold_reserve(self) -> None:
        """Set a little disk space aside beside a SQLite store file (see ``_reserve``)."""
        if self.engine.dialect.name == "sqlite":
            hold(reserve_path(self.engine.url.database))

    def release_reserve(self) -> None:
        """Give the space set aside back, so that the next write finds room."""
        if self.engine.dialect.name == "sqlite":
            release(reserve_path(self.engine.url.database))

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()


_TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_tag(name: str) -> None:
    """Refuse a tag name that is not 1-64 letters, digits, ``_ . -`` (starting with a
    letter or digit)."""
    if not _TAG.fullmatch(name):
        raise AssayInputError(
            f"tag {name!r}: a tag is 1 to 64 letters, digits, '_', '.' or '-', starting with "
            "a letter or a digit (e.g. baseline, release-1.4)"
        )
