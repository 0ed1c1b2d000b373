"""Grading a run's case-trials on the trajectory their application's received spans
describe: the spans arrive after the record (``assay run --receive-spans``), so a record
without a trajectory of its own is judged again once the receiver has drained."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from assay.grading import CallingGrader, Grader, Judgment, judge_record
from assay.outcomes import Record, Span, with_span_trajectory
from assay.runner._judging import JudgeRunner, judge_all
from assay.runner._options import Timing
from assay.store import RunStore


def with_spans_trajectories(records: Sequence[Record], spans: Sequence[Span]) -> list[Record]:
    """``records``, each without a trajectory of its own given the one its case-trial's
    spans describe (``with_span_trajectory``)."""
    by_key: dict[tuple[str | None, int | None], list[Span]] = {}
    for span in spans:
        by_key.setdefault((span.case_id, span.trial), []).append(span)
    return [with_span_trajectory(r, by_key.get(r.key, [])) for r in records]


def grade_from_spans(
    store: RunStore, run_id: str, grader: Grader, timing: Timing | None = None
) -> int:
    """Judge again, with ``grader``, every record of run ``run_id`` that carries no
    trajectory but whose stored spans describe one, and store each with that trajectory
    (beside what the target returned) and its new judgment in place of the one made
    without it. Returns how many case-trials were judged again."""
    stored = store.records(run_id)
    derived = with_spans_trajectories(stored, store.spans(run_id))
    changed = [new for old, new in zip(stored, derived, strict=True) if new is not old]
    if not changed:
        return 0
    cases = {c.id: c for c in store.load_dataset(run_id).cases}
    pending = [(cases[r.case_id], r) for r in changed if r.case_id in cases]
    judged: list[Judgment] = []
    if isinstance(grader, CallingGrader):
        runner = JudgeRunner(grader, timing)
        asyncio.run(
            judge_all(runner, pending, on_judged=lambda j, again: judged.extend([j, *again]))
        )
    else:
        judged = [judge_record(case, record, grader) for case, record in pending]
    store.rejudge(run_id, [r for _, r in pending], judged)
    return len(pending)
