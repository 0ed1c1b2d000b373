"""``RunStore``: runs, their records, judgments and spans in one SQL database."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select, update

from assay.cases import Case, Dataset, canonical_json
from assay.errors import AssayInputError, did_you_mean
from assay.grading import Judgment
from assay.outcomes import Record, Span
from assay.store._info import RunInfo
from assay.store._rows import (
    dump,
    iso_time,
    judgment,
    judgment_rows,
    record,
    run_info,
    span,
)
from assay.store._schema import judgments, records, runs, spans


class RunStore:
    """Stored runs. Open one with ``open_store``; close it with ``close()``.

    Records are unique per (run, case, trial): adding one twice raises. ``records`` come
    back in dataset order, then trial.
    """

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.url = url
        self._positions: dict[str, dict[str, int]] = {}
        self._datasets: dict[str, Dataset] = {}  # a run's cases never change once stored

    # -- runs -------------------------------------------------------------------------
    def create_run(self, info: RunInfo, cases: Sequence[Case] | Dataset = ()) -> None:
        """Store a new run and the cases it runs (in order, as canonical records); given
        as a ``Dataset``, that very dataset is kept for the run (its version and case
        hashes already computed are not computed again)."""
        dataset = cases if isinstance(cases, Dataset) else None
        cases = dataset.cases if dataset is not None else tuple(cases)
        row = {
            "id": info.id,
            "started_at": iso_time(info.started_at),
            "ended_at": iso_time(info.ended_at),
            "status": info.status,
            "suite_path": info.suite_path,
            "suite": dump(info.suite),
            "dataset_name": info.dataset_name,
            "dataset_version": info.dataset_version,
            "cases": canonical_json([c.model_dump(mode="json") for c in cases]),
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
        self._datasets[info.id] = dataset or Dataset(name=info.dataset_name, cases=cases)

    def set_status(self, run_id: str, status: str) -> None:
        """Mark a run's status without ending it (a resumed run is ``running`` again)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(runs).where(runs.c.id == run_id).values(status=status, ended_at=None)
            )

    def finish_run(self, run_id: str, status: str, summary: dict[str, Any] | None = None) -> None:
        """Record how a run ended, when, and its headline figures."""
        values: dict[str, Any] = {"status": status, "ended_at": iso_time(datetime.now(UTC))}
        if summary is not None:
            values["summary"] = dump(summary)
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(**values))

    def _resolve(self, run_id: str) -> str:
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
        raise AssayInputError(
            f"no run '{run_id}' in the store {self.url}{did_you_mean(run_id, every)}; "
            "`assay runs` lists the stored runs"
        )

    def get_run(self, run_id: str) -> RunInfo:
        """The run with this id (or unique id prefix)."""
        full = self._resolve(run_id)
        with self.engine.connect() as conn:
            row = conn.execute(select(runs).where(runs.c.id == full)).mappings().one()
        return run_info(row)

    def list_runs(self) -> list[RunInfo]:
        """Every stored run, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(runs).order_by(runs.c.started_at.desc(), runs.c.id.desc())
            ).mappings()
            return [run_info(r) for r in rows]

    def load_dataset(self, run_id: str) -> Dataset:
        """The cases exactly as the run ran them, in order."""
        full = self._resolve(run_id)
        if full not in self._datasets:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(runs.c.dataset_name, runs.c.cases).where(runs.c.id == full)
                ).one()
            cases = tuple(Case.model_validate(c) for c in json.loads(row.cases))
            self._datasets[full] = Dataset(name=row.dataset_name, cases=cases)
        return self._datasets[full]

    # -- records ----------------------------------------------------------------------
    def _position_map(self, run_id: str) -> dict[str, int]:
        if run_id not in self._positions:
            ids = self.load_dataset(run_id).ids
            self._positions[run_id] = {case_id: i for i, case_id in enumerate(ids)}
        return self._positions[run_id]

    def add_records(self, run_id: str, batch: Sequence[Record]) -> None:
        """Store records in one transaction; a (case, trial) already stored raises."""
        if not batch:
            return
        with self.engine.begin() as conn:
            conn.execute(records.insert(), self._record_rows(run_id, batch))

    def add_results(self, run_id: str, batch: Sequence[Record], judged: Sequence[Judgment]) -> None:
        """Store records and their judgments in one transaction."""
        if not batch and not judged:
            return
        with self.engine.begin() as conn:
            if batch:
                conn.execute(records.insert(), self._record_rows(run_id, batch))
            if judged:
                conn.execute(judgments.insert(), judgment_rows(run_id, judged))

    def _record_rows(self, run_id: str, batch: Sequence[Record]) -> list[dict[str, Any]]:
        positions = self._position_map(run_id)
        return [
            {
                "run_id": run_id,
                "case_id": r.case_id,
                "trial": r.trial,
                "position": positions.get(r.case_id, len(positions)),
                "outcome": r.outcome.model_dump_json(exclude_none=True),
                "attempts": r.attempts,
                "latency_ms": r.latency_ms,
                "input_tokens": r.usage.input_tokens if r.usage else None,
                "output_tokens": r.usage.output_tokens if r.usage else None,
                "extra": dump(r.extra) if r.extra else None,
                "trace_id": r.trace_id,
            }
            for r in batch
        ]

    def records(self, run_id: str) -> list[Record]:
        """The run's records in dataset order, then trial."""
        full = self._resolve(run_id)
        query = (
            select(records)
            .where(records.c.run_id == full)
            .order_by(records.c.position, records.c.trial)
        )
        with self.engine.connect() as conn:
            return [record(row) for row in conn.execute(query).mappings()]

    def recorded_keys(self, run_id: str) -> set[tuple[str, int]]:
        """The (case, trial) pairs already recorded for a run."""
        query = select(records.c.case_id, records.c.trial).where(records.c.run_id == run_id)
        with self.engine.connect() as conn:
            return {(row.case_id, row.trial) for row in conn.execute(query)}

    def count_records(self, run_id: str) -> int:
        """How many records a run has."""
        query = select(func.count()).select_from(records).where(records.c.run_id == run_id)
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    # -- judgments and spans ----------------------------------------------------------
    def add_judgments(self, run_id: str, batch: Sequence[Judgment]) -> None:
        """Store judgments (one per case, trial and grader)."""
        if not batch:
            return
        with self.engine.begin() as conn:
            conn.execute(judgments.insert(), judgment_rows(run_id, batch))

    def judgments(self, run_id: str) -> list[Judgment]:
        """The run's judgments, in dataset order, then trial."""
        full = self._resolve(run_id)
        positions = self._position_map(full)
        with self.engine.connect() as conn:
            rows = conn.execute(select(judgments).where(judgments.c.run_id == full)).mappings()
            found = [judgment(row) for row in rows]
        return sorted(found, key=lambda j: (positions.get(j.case_id, -1), j.trial, j.grader))

    def add_spans(self, run_id: str, batch: Sequence[Span]) -> None:
        """Store spans of the run's request traces."""
        if not batch:
            return
        rows = [
            {
                "run_id": run_id,
                **s.model_dump(exclude={"attributes"}),
                "attributes": dump(s.attributes),
            }
            for s in batch
        ]
        with self.engine.begin() as conn:
            conn.execute(spans.insert(), rows)

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

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()
