"""``assay gate``: pass or fail a report against rules, for CI (exit 1 when a rule fails)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from assay._controls import escape_controls
from assay.errors import AssayConfigError


def gate(
    source: str | None = typer.Argument(
        None,
        help="A JSON report file, a run id in the store, or a matrix id with --variant "
        "(or use --trend SUITE).",
    ),
    rule: list[str] = typer.Option(
        [],
        "--rule",
        "-r",
        help="A rule such as 'task_success>=0.8', 'answered_accuracy.low>=0.6', "
        "'errors==0', 'slice[exception].task_success>=0.5'; add ' allow_na' to let an "
        "n/a rate pass. Repeat for several rules.",
    ),
    trend: str | None = typer.Option(
        None,
        "--trend",
        help="Gate the newest run of this suite against the run before it or a tagged run: "
        "'no_new_failures_vs_last', 'no_new_failures_vs_baseline', "
        "'task_success.low>=baseline.low', 'task_success>=last-0.02' (docs/trend.md).",
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
        "report file written at another level is recomputed from its counts). Default 0.95.",
    ),
    interval: str | None = typer.Option(
        None, help="clopper-pearson (exact, the default) or wilson; as --confidence."
    ),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        help="A run id or JSON report file that not_worse_than_baseline(MARGIN) compares "
        "SOURCE with (default for a stored run: its suite's run tagged baseline, else the "
        "suite's last completed run before it on the same dataset version).",
    ),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="Require this judge calibration report (assay calibrate -f json) for the "
        "judge that graded SOURCE, with --max-false-accept-upper. A run of a suite whose "
        "judge settings require one is checked against it without this option.",
    ),
    max_false_accept_upper: float | None = typer.Option(
        None,
        "--max-false-accept-upper",
        help="With --calibration: the most the upper bound of its false-accept rate may be (0-1).",
    ),
    max_false_reject_upper: float | None = typer.Option(
        None,
        "--max-false-reject-upper",
        help="With --calibration: also the most the upper bound of its false-reject rate may "
        "be (0-1).",
    ),
    min_kappa_lower: float | None = typer.Option(
        None,
        "--min-kappa-lower",
        help="With --calibration: also the least the lower bound of its weighted kappa may "
        "be (-1 to 1).",
    ),
) -> None:
    """Check SOURCE (or the newest run of --trend SUITE) against every --rule; exit 1 when
    any fails, printing which and by how much. For a matrix: --variant NAME checks one
    variant's run; --best-not-worse-than NAME fails unless the best other variant does at
    least as well as NAME."""
    import os

    from assay.cli._options import check_confidence, check_method
    from assay.cli._output import check_output, emit
    from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
    from assay.render import render
    from assay.runner import GateRequest, gate_request

    method = check_method(interval) if interval is not None else None
    if confidence is not None:
        check_confidence(confidence)
    asked = None
    if (confidence, method) != (None, None):
        asked = IntervalSetting(
            confidence if confidence is not None else DEFAULT_INTERVAL.confidence,
            method if method is not None else DEFAULT_INTERVAL.method,
        )
    request = GateRequest(
        source=source,
        rules=tuple(rule),
        trend=trend,
        store=store,
        variant=variant,
        best_not_worse_than=best_not_worse_than,
        interval=asked,
        baseline=baseline,
        calibration=calibration,
        max_false_accept_upper=max_false_accept_upper,
        max_false_reject_upper=max_false_reject_upper,
        min_kappa_lower=min_kappa_lower,
        junit=junit,
        markdown=markdown,
    )
    inputs = request.files
    for path in (junit, markdown):
        if path is not None:
            check_output(path, inputs)
    verdict = gate_request(request, _say)
    outcome = verdict.outcome
    if outcome is None:
        typer.echo(verdict.message)
        if not verdict.passed:
            raise typer.Exit(1)
        return
    if junit is not None:
        emit(render(outcome, "junit"), junit, inputs)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if markdown is not None or step_summary:
        summary = render(outcome, "markdown")
        if markdown is not None:
            emit(summary, markdown, inputs)
        if step_summary:
            _append_step_summary(step_summary, summary)
    sys.stdout.write(render(outcome, "text"))
    if not verdict.passed:
        raise typer.Exit(1)


def _say(text: str) -> None:
    sys.stderr.write(f"assay: {text}\n")


def _append_step_summary(path: str, summary: str) -> None:
    """Append the gate's Markdown summary to the file ``$GITHUB_STEP_SUMMARY`` names."""
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(escape_controls(summary) + "\n")
    except OSError as err:  # a name too long, a folder that does not exist
        raise AssayConfigError(
            f"GITHUB_STEP_SUMMARY {path}: cannot be written: {err.strerror or err}"
        ) from None
