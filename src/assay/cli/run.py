"""``assay run``: run a suite's target over its cases, store the run, print the report."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL
from assay.cli._output import emit, wants_color


def _ids(value: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip()) if value else ()


def run(
    suite: Path | None = typer.Argument(None, help="Suite file (YAML). Optional with --resume."),
    concurrency: int | None = typer.Option(None, help="Cases in flight at once."),
    trials: int | None = typer.Option(None, help="Runs of every case."),
    timeout: float | None = typer.Option(
        None, "--timeout", help="Seconds one call to the target may take (suite: timeout_s)."
    ),
    retries: int | None = typer.Option(
        None, help="Extra attempts after a timeout, 429, 5xx or connection error (0-20)."
    ),
    rpm: float | None = typer.Option(
        None, "--rpm", help="At most this many calls (retries included) start per minute."
    ),
    limit: int | None = typer.Option(None, help="Run only the first N selected cases."),
    slice_: str | None = typer.Option(None, "--slice", help="Run only these slices (a,b)."),
    ids: str | None = typer.Option(None, "--ids", help="Run only these case ids (A,B)."),
    store: str | None = typer.Option(
        None, "--store", help="Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."
    ),
    format: str = typer.Option(
        "text", "--format", "-f", help="text, json, markdown, html or junit."
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here."),
    resume: str | None = typer.Option(
        None, "--resume", help="Finish this stored run: run only its case-trials not yet recorded."
    ),
    trace: bool | None = typer.Option(None, "--trace/--no-trace", help="Record spans."),
    set_: list[str] = typer.Option(
        [],
        "--set",
        help="Run a matrix: KEY=V1,V2 gives one variant per value (target.* or grader); "
        "several --set make a cross product, crossed with the suite's variants.",
    ),
    cache: bool | None = typer.Option(
        None,
        "--cache/--no-cache",
        help="Serve replies from the response cache and keep new ones (suite: cache).",
    ),
    cache_path: Path | None = typer.Option(
        None, "--cache-path", help="The cache file (default: cache.db beside the store's file)."
    ),
    otlp_endpoint: str | None = typer.Option(
        None,
        "--otlp",
        "--otlp-endpoint",
        help="Also export spans and metrics to this OTLP/HTTP collector.",
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
) -> None:
    """Run SUITE: call its target for every case and trial, store the run, print its report.

    Ctrl-C stops cleanly: what finished is stored and the run is marked interrupted;
    `assay run --resume RUN_ID` then runs only the case-trials not yet recorded.
    """
    from assay.cli._gating import check_gates, stored_rules, suite_rules
    from assay.cli._options import check_confidence, check_format, check_method
    from assay.cli._progress import RichProgress
    from assay.errors import AssayConfigError
    from assay.load import load_suite
    from assay.report.render import render
    from assay.runner import Overrides, RunControl, Selection, report_for_run, resume_run, run_suite
    from assay.store import open_store

    check_format(format)
    method = check_method(interval)
    check_confidence(confidence)
    if suite is None and resume is None:
        raise AssayConfigError("give a suite file to run, or --resume RUN_ID")
    overrides = Overrides(
        concurrency=concurrency,
        trials=trials,
        timeout_s=timeout,
        retries=retries,
        rpm=rpm,
        trace=trace,
        cache=True if cache_path is not None and cache is None else cache,
        cache_path=str(cache_path) if cache_path is not None else None,
    )
    selection = Selection(_ids(slice_), _ids(ids), limit)
    if resume is not None and set_:
        raise AssayConfigError("--resume finishes the stored matrix's own variants; drop --set")
    from assay.cli._matrix_run import has_variants, run_matrix_command

    if (resume is not None and resume.startswith("mx-")) or (
        suite is not None and resume is None and (set_ or has_variants(suite))
    ):
        run_matrix_command(
            suite,
            resume,
            set_,
            overrides,
            selection,
            store,
            format,
            output,
            otlp_endpoint,
            confidence,
            method,
        )
        return
    if resume is not None and not selection.empty:
        raise AssayConfigError(
            "--resume runs the stored run's own cases; drop --limit/--slice/--ids"
        )
    loaded = load_suite(suite) if suite is not None else None
    rules = suite_rules(loaded) if loaded is not None else []
    runs = open_store(store)
    try:
        label = f"run {resume}"
        if suite is not None:
            label = f"{suite.parent.name}/{suite.name}".lstrip("/")
        control = RunControl(
            progress=RichProgress(label), handle_signals=True, otlp_endpoint=otlp_endpoint
        )
        if resume is not None:
            if loaded is None:  # the gates of the suite the run was started with
                rules = stored_rules(runs.get_run(resume))
            result = resume_run(runs, resume, suite=loaded, overrides=overrides, control=control)
        else:
            assert loaded is not None
            result = run_suite(
                loaded, runs, selection=selection, overrides=overrides, control=control
            )
        report = result.report
        if (confidence, method) != (0.95, "clopper-pearson"):  # the run stored, asked level
            report = report_for_run(runs, result.run_id, confidence=confidence, method=method)
    finally:
        runs.close()
    text = render(report, format, color=wants_color(output))
    if resume is not None and result.ran == 0:
        typer.echo(
            f"assay: nothing left to run: every case-trial of run {result.run_id} "
            "was already recorded",
            err=True,
        )
    if result.cache_error is not None:
        typer.echo(
            f"assay: warning: the response cache could not keep replies "
            f"({result.cache_error}); the run is complete, a rerun calls the target again",
            err=True,
        )
    headline = f"run {result.run_id} ({result.status})"
    if format in ("text", "markdown"):
        text = f"{headline}\n\n{text}"
    else:  # a machine-readable report stays exactly that on stdout
        typer.echo(headline, err=True)
    emit(text, output)
    if result.status == "interrupted":
        typer.echo(
            f"assay: run {result.run_id} interrupted; finish it with "
            f"`assay run --resume {result.run_id}`",
            err=True,
        )
        raise typer.Exit(130)
    if not check_gates(report, rules):
        raise typer.Exit(1)
