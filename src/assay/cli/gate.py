"""``assay gate``: pass or fail a report against rules, for CI (exit 1 when a rule fails)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from assay.metrics import IntervalMethod


def _variant_run(matrix_id: str, variant: str, store: str | None) -> str:
    """The run id of ``variant`` in matrix ``matrix_id``."""
    from assay.errors import AssayInputError, did_you_mean
    from assay.runner import matrix_runs
    from assay.store import open_store

    runs = open_store(store)
    try:
        found = matrix_runs(runs, matrix_id)
    finally:
        runs.close()
    names = {str(r.metadata["matrix"]["variant"]): r.id for r in found}
    if variant not in names:
        raise AssayInputError(
            f"--variant {variant}: matrix {matrix_id} has no such variant"
            f"{did_you_mean(variant, list(names))}; its variants: {', '.join(names)}"
        )
    return names[variant]


def _best(
    matrix_id: str,
    baseline: str,
    store: str | None,
    confidence: float | None,
    method: IntervalMethod | None,
) -> None:
    from assay.compare import best_not_worse
    from assay.runner import matrix_report
    from assay.store import open_store

    runs = open_store(store)
    try:
        m = matrix_report(
            runs, matrix_id, confidence=confidence or 0.95, method=method or "clopper-pearson"
        )
    finally:
        runs.close()
    check = best_not_worse(m, baseline)
    typer.echo(check.message)
    if not check.passed:
        raise typer.Exit(1)


def gate(
    source: str = typer.Argument(
        ..., help="A JSON report file, a run id in the store, or a matrix id with --variant."
    ),
    rule: list[str] = typer.Option(
        [],
        "--rule",
        "-r",
        help="A rule such as 'task_success>=0.8', 'answered_accuracy.low>=0.6', "
        "'errors==0', 'slice[exception].task_success>=0.5'; add ' allow_na' to let an "
        "n/a rate pass. Repeat for several rules.",
    ),
    junit: Path | None = typer.Option(
        None, "--junit", help="Write JUnit XML: one test case per rule and per case."
    ),
    markdown: Path | None = typer.Option(
        None,
        "--markdown",
        help="Write a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set).",
    ),
    store: str | None = typer.Option(
        None, "--store", help="Run store URL (default: $ASSAY_STORE or .assay/assay.db)."
    ),
    variant: str | None = typer.Option(
        None, "--variant", help="SOURCE is a matrix id: check this variant's run."
    ),
    best_not_worse_than: str | None = typer.Option(
        None,
        "--best-not-worse-than",
        help="SOURCE is a matrix id: fail unless the other variant with the highest task "
        "success has at least this variant's task success.",
    ),
    confidence: float | None = typer.Option(
        None,
        help="Confidence level of every interval (a run id's report is rebuilt at it; a "
        "report file must have been written at it). Default 0.95.",
    ),
    interval: str | None = typer.Option(
        None, help="clopper-pearson (exact, the default) or wilson; as --confidence."
    ),
) -> None:
    """Check SOURCE against every --rule; exit 1 when any fails, printing which and by how
    much. For a matrix: --variant NAME checks one variant's run; --best-not-worse-than NAME
    fails unless the best other variant does at least as well as NAME."""
    import os
    import sys

    from assay.cli._options import check_confidence, check_method
    from assay.cli._output import check_output, emit
    from assay.cli._sources import report_from_source
    from assay.errors import AssayConfigError
    from assay.report import evaluate_gates, gates_passed, parse_rule
    from assay.report.render.gates import render_gates_markdown, render_gates_text
    from assay.report.render.junit import render_junit

    method = check_method(interval) if interval is not None else None
    if confidence is not None:
        check_confidence(confidence)
    if best_not_worse_than is not None:
        if rule or variant is not None or junit is not None or markdown is not None:
            raise AssayConfigError(
                "--best-not-worse-than is a check of its own: give it without --rule, "
                "--variant, --junit or --markdown"
            )
        _best(source, best_not_worse_than, store, confidence, method)
        return
    if not rule:
        raise AssayConfigError("give at least one --rule (or --best-not-worse-than VARIANT)")
    rules = [parse_rule(text) for text in rule]
    inputs = [Path(source)] if Path(source).is_file() else []
    for path in (junit, markdown):
        if path is not None:
            check_output(path, inputs)
    if variant is not None:
        source = _variant_run(source, variant, store)
    report = report_from_source(source, store, confidence, method)
    results = evaluate_gates(report, rules)
    if junit is not None:
        emit(render_junit(report, results), junit, inputs)
    summary = render_gates_markdown(report, results)
    if markdown is not None:
        emit(summary, markdown, inputs)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(summary + "\n")
    sys.stdout.write(render_gates_text(results))
    if not gates_passed(results):
        raise typer.Exit(1)
