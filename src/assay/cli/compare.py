"""``assay compare``: pair a baseline and a candidate run and say what changed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, OUTPUT, format_option

if TYPE_CHECKING:
    from assay.compare import Comparison, RunSide
    from assay.metrics import IntervalSetting


def _from_file(path: Path) -> RunSide:
    from assay.compare import RunSide
    from assay.load import load_report_file

    return RunSide.from_report(load_report_file(path), ref=str(path))


def _from_store(ref: str, store_url: str | None, interval: IntervalSetting) -> RunSide:
    from assay.errors import AssayInputError

    try:
        from assay.cli._sources import open_run_store
        from assay.runs import run_side
    except ImportError as err:
        raise AssayInputError(
            f"{ref}: no such report file, and this installation has no run store to look "
            "the run id up in"
        ) from err

    store = open_run_store(ref, store_url)
    try:
        return run_side(store, ref, interval)
    finally:
        store.close()


def _stored_comparison(
    baseline: str,
    candidate: str,
    store_url: str | None,
    matching_only: bool,
    across_graders: bool,
    interval: IntervalSetting,
) -> Comparison | None:
    """Two stored runs paired in the store as they are read (``paired_comparison``), or
    None when their reports must be compared."""
    try:
        from assay.cli._sources import open_run_store
        from assay.runs import paired_comparison

        store = open_run_store(baseline, store_url)
    except Exception:
        return None  # the reports' path says what is wrong

    try:
        return paired_comparison(
            store,
            baseline,
            candidate,
            matching_only=matching_only,
            across_graders=across_graders,
            interval=interval,
        )
    finally:
        store.close()


def _side(ref: str, store: str | None, interval: IntervalSetting) -> RunSide:
    from assay.load import names_a_file

    path = Path(ref)
    if names_a_file(path):
        from assay.load import composite_report_file

        composite = composite_report_file(path)
        if composite is not None:
            return _from_composite(composite, str(path))
        return _from_file(path)
    return _from_store(ref, store, interval)


def _from_composite(report: Any, ref: str) -> RunSide:
    """A JSON composite report as a side: each case-trial's composite status, paired like
    any other; its profile is configuration (a changed profile is listed as a change)."""
    from assay.compare import RunSide
    from assay.report import CaseRow

    grader = f"composite · profile {report.profile.name}"
    rows = tuple(
        CaseRow(
            id=r.id,
            slice=r.slice,
            trial=r.trial,
            synthetic=r.synthetic,
            question=r.question,
            expected_behavior="composite",
            outcome=None if r.status == "missing" else "answer",
            text=r.answer,
            status=r.status,
            reason=r.reason,
            grader=grader,
        )
        for r in report.cases
    )
    return RunSide(
        ref=ref,
        dataset_name=report.dataset.name,
        dataset_version=report.dataset.version,
        rows=rows,
        config={
            "assay_version": report.assay_version,
            "report": "composite",
            "profile": report.profile.model_dump(mode="json"),
        },
    )


def _compared_sides(
    baseline: str,
    candidate: str,
    store: str | None,
    matching_only: bool,
    across_graders: bool,
    setting: IntervalSetting,
) -> Comparison:
    """The comparison of the two sides' reports (files or stored runs)."""
    from assay.compare import compare_runs

    sides = [_side(ref, store, setting) for ref in (baseline, candidate)]
    kinds = [side.config.get("report") == "composite" for side in sides]
    if kinds[0] != kinds[1]:
        from assay.errors import AssayConfigError

        raise AssayConfigError(
            f"{baseline if kinds[0] else candidate} is a composite report and the other side "
            "is not: their statuses come from different graders; compare composite with "
            "composite"
        )
    return compare_runs(
        sides[0],
        sides[1],
        matching_only=matching_only,
        across_graders=across_graders,
        interval=setting,
    )


def compare(
    baseline: str = typer.Argument(..., help="Baseline: a run id or a JSON report file."),
    candidate: str = typer.Argument(..., help="Candidate: a run id or a JSON report file."),
    matching_only: bool = typer.Option(
        False,
        "--matching-only",
        help="Compare only cases with identical definitions and sources; list the rest.",
    ),
    across_graders: bool = typer.Option(
        False,
        "--across-graders",
        help="Compare runs graded by different model judges (model, prompt, rubric or "
        "grader version); the change is listed under configuration changes.",
    ),
    gate: list[str] = typer.Option(
        [],
        "--gate",
        help='Fail (exit 1) unless this holds: "no-new-failures" or e.g. '
        '"task_success_delta>=-0.02". Repeatable.',
    ),
    margin: float | None = typer.Option(
        None,
        "--margin",
        help="Non-inferiority: fail (exit 1) unless the paired interval of the task-success "
        "difference shows the candidate not worse than the baseline by more than this "
        "difference of rates (0.02: 2 points); the verdict is in every format.",
    ),
    format: str | None = format_option("comparison"),
    output: Path | None = OUTPUT,
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    store: str | None = typer.Option(
        None, "--store", help="Run store URL (default: $ASSAY_STORE or .assay/assay.db)."
    ),
) -> None:
    """Pair BASELINE and CANDIDATE by case and trial: newly fixed and newly broken cases,
    the exact McNemar test, the task-success delta with its interval, and what changed in
    the configuration. Refuses when the case definitions differ (see --matching-only) or
    the model judge differs (see --across-graders)."""
    from assay.cli._options import interval_setting, output_format
    from assay.cli._output import emit
    from assay.compare import non_inferiority
    from assay.formats import formats
    from assay.gates import check_gate, check_margin
    from assay.load import names_a_file
    from assay.render import render

    if margin is not None:
        check_margin(margin, "--margin")
    named = [Path(ref) for ref in (baseline, candidate) if names_a_file(Path(ref))]
    format = output_format(format, output, formats("comparison"), named)
    setting = interval_setting(confidence, interval)
    comparison = None
    if not named:
        comparison = _stored_comparison(
            baseline, candidate, store, matching_only, across_graders, setting
        )
    if comparison is None:
        comparison = _compared_sides(
            baseline, candidate, store, matching_only, across_graders, setting
        )
    if margin is not None:
        found = non_inferiority(comparison.task_success_delta, margin)
        comparison = comparison.model_copy(update={"non_inferiority": found})
    results = [check_gate(comparison, rule) for rule in gate]
    if margin is not None:
        results.append(check_gate(comparison, f"not_worse_than_baseline({margin:g})"))
    inputs = [Path(ref) for ref in (baseline, candidate) if names_a_file(Path(ref))]

    document = render(comparison, format)
    emit(
        document,
        output,
        inputs,
        what=f"{format} comparison of {baseline} and {candidate} ({comparison.paired} paired)",
    )
    for result in results:
        verdict = "passed" if result.passed else "FAILED"
        sys.stderr.write(f"gate {verdict}: {result.rule}: {result.detail}\n")
    if not all(r.passed for r in results):
        raise typer.Exit(1)
