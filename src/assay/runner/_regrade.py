"""Re-judging a stored run's recorded answers with another grader (or its own, built again
from its provenance), without calling the target again: a new run, linked to the old one,
that can itself be resumed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from assay._version import __version__
from assay.errors import AssayConfigError
from assay.grading import MAX_REPEATS, CallingGrader, Grader, Judgment, judge_record
from assay.load import (
    PluginNotInstalled,
    grader_from_provenance,
    grader_provenance,
    plugin_grader,
)
from assay.outcomes import Record
from assay.runner._judging import JudgeRunner, judge_all
from assay.runner._options import Timing
from assay.runner._provenance import new_run_id, package_versions
from assay.runner._run import RunResult
from assay.runner._span_grading import with_spans_trajectories
from assay.runs import headline, report_for_run, run_metadata
from assay.store import RunInfo, RunStore

REGRADE_KEY = "regrade_of"


def _new_run(source: RunInfo, grader: Grader, provenance: dict[str, str] | None) -> RunInfo:

    now = datetime.now(UTC)
    return RunInfo(
        id=new_run_id(now),
        started_at=now,
        suite_path=source.suite_path,
        suite=source.suite,
        dataset_name=source.dataset_name,
        dataset_version=source.dataset_version,
        target=source.target,
        target_hash=source.target_hash,
        graders=[provenance or grader_provenance(grader)],
        trials=source.trials,
        trial_policy=source.trial_policy,
        assay_version=__version__,
        packages=package_versions(),
        metadata={**source.metadata, REGRADE_KEY: source.id},
    )


def _repeating(grader: Grader, repeats: int) -> Grader:
    """``grader`` asking ``repeats`` times about each answer; ``AssayConfigError`` when it
    is not a model judge (a grader judging in process says the same every time)."""
    if not 1 <= repeats <= MAX_REPEATS:
        raise AssayConfigError(f"--repeats {repeats}: give a number from 1 to {MAX_REPEATS}")
    if repeats == 1:
        return grader
    if not isinstance(grader, CallingGrader):
        raise AssayConfigError(
            f'--repeats {repeats}: grader "{grader.name}" judges in process and says the '
            "same every time; only a model judge is asked again"
        )
    repeated = getattr(grader, "repeated", None)
    return repeated(repeats) if callable(repeated) else grader


def _resumed_repeats(target: RunInfo, repeats: int | None) -> int | None:
    """How many times a resumed regrade asks about each answer: as often as it did
    (``AssayConfigError`` when ``repeats`` says otherwise)."""
    counts = [e.get("repeats", "1") for e in target.graders]
    before = int(counts[0]) if counts and str(counts[0]).isdigit() else 1
    if repeats is not None and repeats != before:
        raise AssayConfigError(
            f"--repeats {repeats}: regrade run {target.id} asked {before} time(s) about "
            f"each answer; resume it with --repeats {before}"
        )
    return before if before > 1 else repeats


def recorded_grader(source: RunInfo) -> tuple[Grader, dict[str, str]]:
    """The grader run ``source`` recorded, built again from its provenance (a plugin grader
    by its registered type and recorded settings, paths relative to the suite's directory),
    with what the new run records about it; ``AssayConfigError`` naming the grader when it
    cannot be built here (a plugin not installed, settings that no longer fit, a judge
    whose endpoint was not recorded, a scorer that read source snapshots, no grader)."""
    from pathlib import Path

    base_dir = Path(source.suite_path).parent if source.suite_path else Path(".")
    for entry in source.graders:
        if "type" in entry:
            try:
                plugin = plugin_grader(entry, base_dir)
            except PluginNotInstalled as err:
                raise AssayConfigError(f"run {source.id}: {err}") from None
            # The type and settings as recorded; the name and version of the grader now.
            return plugin, {**entry, "name": plugin.name, "version": plugin.version}
        if "sources_version" in entry:
            raise AssayConfigError(
                f'run {source.id}: its grader "{entry.get("name", "?")}" read source '
                f"snapshots ({entry['sources_version']}) that the store does not keep, so it "
                "cannot be built again from the run; run the suite again instead"
            )
        grader = grader_from_provenance(entry, base_dir)
        if isinstance(grader, CallingGrader) and grader.endpoint is None:
            raise AssayConfigError(
                f'run {source.id}: its grader "{grader.name}" did not record where its model '
                "is; name the judge's settings with --grader"
            )
        if grader is not None:
            return grader, grader_provenance(grader)
    names = ", ".join(f'"{e.get("name", "?")}"' for e in source.graders) or "none"
    raise AssayConfigError(
        f"run {source.id}: its grader ({names}) cannot be built again from what the run "
        "recorded; name a judge with --grader"
    )


def regrade_run(
    store: RunStore,
    run_id: str,
    grader: Grader,
    *,
    resume: str | None = None,
    timing: Timing | None = None,
    provenance: dict[str, str] | None = None,
    repeats: int | None = None,
) -> RunResult:
    """Judge every recorded outcome of run ``run_id`` into a new run (or, with ``resume``,
    the outcomes a previous, interrupted regrade of it has not judged yet). A calling
    grader's requests are sent through ``JudgeRunner``; any other grader judges in
    process. A record without a trajectory of its own is judged on the one its stored
    spans describe (``trajectory_from_spans``), and kept with it. ``provenance``: what
    the new run records about ``grader`` (default: what ``grader_provenance`` says; a
    plugin grader rebuilt from a run passes that run's entry).

    ``repeats``: ask a model judge that many times about each answer (default: as its
    settings say); every repeat's judgment is kept beside the verdict the run counts. A
    resumed regrade asks as many times as it did before."""
    if resume is not None:
        repeats = _resumed_repeats(store.get_run(resume), repeats)
    if repeats is not None and repeats != 1:
        grader = _repeating(grader, repeats)
        if provenance is not None and "type" in provenance:  # a plugin: its entry, repeated
            provenance = {**provenance, "version": grader.version, "repeats": str(repeats)}
        else:
            provenance = None  # what the judge records about itself, repeats included
    elif repeats is not None:
        _repeating(grader, repeats)
    source = store.get_run(run_id)
    dataset = store.load_dataset(source.id)
    records = with_spans_trajectories(store.records(source.id), store.spans(source.id))
    if resume is not None:
        target = store.get_run(resume)
        if target.metadata.get(REGRADE_KEY) != source.id:
            raise AssayConfigError(
                f"--resume {resume}: run {target.id} is not a regrade of run {source.id}"
            )
        done = store.recorded_keys(target.id)
        store.set_status(target.id, "running")
    else:
        target = _new_run(source, grader, provenance)
        store.create_run(target, dataset.cases)
        done = set()
    by_id = {c.id: c for c in dataset.cases}
    pending = [(by_id[r.case_id], r) for r in records if r.key not in done and r.case_id in by_id]
    by_key: dict[tuple[str, int], Record] = {r.key: r for _, r in pending}
    written = 0

    def write(judgment: Judgment, repeated: list[Judgment] | None = None) -> None:
        nonlocal written
        record = by_key[(judgment.case_id, judgment.trial)]
        store.add_results(target.id, [record], [judgment, *(repeated or ())])
        written += 1

    status = "failed"
    try:
        if isinstance(grader, CallingGrader):
            runner = JudgeRunner(grader, timing, repeats=repeats)
            asyncio.run(judge_all(runner, pending, on_judged=write))
        else:
            for case, record in pending:
                write(judge_record(case, record, grader))
        status = "completed"
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        report = report_for_run(store, target.id)
        store.finish_run(target.id, status, headline(report))
        ended: dict[str, Any] = run_metadata(store.get_run(target.id))
        report = report.model_copy(update={"metadata": ended})
    return RunResult(target.id, status, report, written, len(done))
