"""``assay gate``: pass or fail a report against rules, for CI (exit 1 when a rule fails)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay._controls import escape_controls
from assay.errors import AssayConfigError

if TYPE_CHECKING:
    from assay.gates import Baseline, GateResult
    from assay.grading.judge import CalibrationBounds
    from assay.load import CalibrationCheck
    from assay.metrics import IntervalSetting
    from assay.report import Report
    from assay.store import RunInfo


def _gate_trend(
    suite: str, rules: list[str], store: str | None, interval: IntervalSetting
) -> tuple[Report, list[GateResult]] | None:
    """The newest run's report and every trend rule's result (None: no finished run)."""
    from assay.runner import gate_suite
    from assay.store import open_store

    opened = open_store(store, create=False)
    try:
        latest, results = gate_suite(opened, suite, rules, interval=interval)
    finally:
        opened.close()
    return None if latest is None else (latest.report, results)


def _variant_run(matrix_id: str, variant: str, store: str | None) -> str:
    """The run id of ``variant`` in matrix ``matrix_id``."""
    from assay.errors import AssayInputError, did_you_mean
    from assay.runner import matrix_runs
    from assay.store import open_store

    runs = open_store(store, create=False)
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
    interval: IntervalSetting,
) -> None:
    from assay.compare import best_not_worse
    from assay.runner import matrix_report
    from assay.store import open_store

    runs = open_store(store, create=False)
    try:
        m = matrix_report(runs, matrix_id, interval=interval)
    finally:
        runs.close()
    check = best_not_worse(m, baseline)
    typer.echo(check.message)
    if not check.passed:
        raise typer.Exit(1)


def _bounds(
    max_false_accept_upper: float | None,
    max_false_reject_upper: float | None,
    min_kappa_lower: float | None,
) -> CalibrationBounds | None:
    """The bounds the calibration options set (None without --max-false-accept-upper)."""
    from assay.errors import AssayConfigError

    for name, value, low in (
        ("--max-false-accept-upper", max_false_accept_upper, 0.0),
        ("--max-false-reject-upper", max_false_reject_upper, 0.0),
    ):
        if value is not None and not low < value <= 1:
            raise AssayConfigError(f"{name} {value:g}: must be above 0 and at most 1")
    if min_kappa_lower is not None and not -1 <= min_kappa_lower <= 1:
        raise AssayConfigError(f"--min-kappa-lower {min_kappa_lower:g}: must be from -1 to 1")
    if max_false_accept_upper is None:
        return None
    from assay.grading.judge import CalibrationBounds

    return CalibrationBounds(
        max_false_accept_upper=max_false_accept_upper,
        max_false_reject_upper=max_false_reject_upper,
        min_kappa_lower=min_kappa_lower,
    )


def _calibration_check(
    report: Report,
    source: str,
    from_file: bool,
    store: str | None,
    calibration: Path | None,
    bounds: CalibrationBounds | None,
    run: RunInfo | None = None,
) -> CalibrationCheck | None:
    """The judge calibration to require of SOURCE: the one --calibration names, else the
    one the suite of a stored run requires (none for a report file); ``run``: the stored
    run's details when already read."""
    from assay.errors import AssayConfigError
    from assay.load import CalibrationCheck, judged_identity

    if calibration is None or bounds is None:
        if from_file:
            return None
        from assay.runs import stored_calibration

        if run is not None:
            return stored_calibration(run)
        from assay.store import open_store

        runs = open_store(store, create=False)
        try:
            return stored_calibration(runs.get_run(report.run_id or source))
        finally:
            runs.close()
    judge = next((g for g in report.graders if g.name == "judge"), None)
    if judge is None:
        found = ", ".join(f"{g.name} v{g.version}" for g in report.graders) or "none recorded"
        raise AssayConfigError(
            f"--calibration: {source} was not graded by a model judge (its graders: {found})"
        )
    identity = judged_identity(report)
    at = identity.get("pass_minimum")
    return CalibrationCheck(
        calibration, bounds, f"judge v{judge.version}", identity, int(at) if at else None
    )


def _baseline(
    source: str,
    named: str | None,
    run: RunInfo | None,
    store: str | None,
    interval: IntervalSetting,
) -> Baseline:
    """What ``not_worse_than_baseline(MARGIN)`` compares SOURCE with: the run or report
    ``named`` (--baseline), else the suite baseline of a stored run; a report file without
    --baseline is refused."""
    from assay.cli._sources import open_run_store, report_and_run
    from assay.gates import Baseline
    from assay.runs import suite_baseline

    if named is not None:
        found, stored = report_and_run(named, store, interval)
        return Baseline(found, f"run {stored.id}" if stored is not None else f"report {named}")
    if run is None:
        raise AssayConfigError(
            f"not_worse_than_baseline(MARGIN) compares {source} with a baseline, and a report "
            "file names none: give --baseline RUN_OR_REPORT"
        )
    opened = open_run_store(source, store)
    try:
        return suite_baseline(opened, run.id, interval)
    finally:
        opened.close()


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
    import sys

    from assay.cli._options import check_confidence, check_method
    from assay.cli._output import check_output, emit
    from assay.cli._sources import composite_report_file, report_and_run
    from assay.errors import AssayConfigError
    from assay.gates import GateOutcome, evaluate_gates, needs_baseline, parse_rule
    from assay.load import names_a_file
    from assay.metrics import IntervalSetting
    from assay.render import render
    from assay.runs import corrected

    method = check_method(interval) if interval is not None else None
    if (calibration is None) != (max_false_accept_upper is None):
        raise AssayConfigError("--calibration and --max-false-accept-upper go together")
    bounds = _bounds(max_false_accept_upper, max_false_reject_upper, min_kappa_lower)
    if calibration is None and (max_false_reject_upper, min_kappa_lower) != (None, None):
        raise AssayConfigError(
            "--max-false-reject-upper and --min-kappa-lower go with --calibration"
        )
    if confidence is not None:
        check_confidence(confidence)
    setting = IntervalSetting(
        confidence if confidence is not None else 0.95,
        method if method is not None else "clopper-pearson",
    )
    if best_not_worse_than is not None:
        if (
            source is None
            or trend is not None
            or rule
            or variant is not None
            or junit
            or markdown
            or calibration
            or baseline
        ):
            raise AssayConfigError(
                "--best-not-worse-than is a check of its own on a matrix id: give it without "
                "--trend, --rule, --variant, --junit, --markdown, --calibration or --baseline"
            )
        _best(source, best_not_worse_than, store, setting)
        return
    if (source is None) == (trend is None):
        raise AssayConfigError(
            "give either SOURCE (a report file or a run id) or --trend SUITE, not both"
            if source is not None
            else "give SOURCE (a report file or a run id) or --trend SUITE"
        )
    if not rule:
        raise AssayConfigError("give at least one --rule (or --best-not-worse-than VARIANT)")
    inputs = [Path(source)] if source is not None and names_a_file(Path(source)) else []
    if baseline is not None and names_a_file(Path(baseline)):
        inputs.append(Path(baseline))
    for path in (junit, markdown):
        if path is not None:
            check_output(path, inputs)
    if trend is not None and baseline is not None:
        raise AssayConfigError(
            "--baseline names what SOURCE is compared with; with --trend, "
            "not_worse_than_baseline(MARGIN) compares the newest run with the run tagged baseline"
        )
    if trend is not None:
        gated = _gate_trend(trend, rule, store, setting)
        if gated is None:
            sys.stdout.write(f"FAIL  no finished run of suite {trend!r} to gate\n")
            raise typer.Exit(1)
        report, results = gated
        if calibration is not None:
            raise AssayConfigError(
                "--calibration checks SOURCE's judge; with --trend the newest run's suite "
                "names the calibration it requires"
            )
        if report.run_id is not None:
            check = _calibration_check(report, report.run_id, False, store, None, None)
            if check is not None:
                results = [*check.results(), *results]
    else:
        assert source is not None
        if variant is not None:
            source = _variant_run(source, variant, store)
        composite = composite_report_file(Path(source))
        if composite is not None:
            if baseline is not None:
                raise AssayConfigError(
                    f"{source} is a composite report: --baseline goes with a run or a report"
                )
            _gate_composite(source, composite, rule, junit, markdown, confidence, interval)
            return
        rules = [parse_rule(text) for text in rule]
        compared = needs_baseline(rules)
        if baseline is not None and not compared:
            raise AssayConfigError(
                "--baseline is what not_worse_than_baseline(MARGIN) compares with: give "
                "that rule with it"
            )
        # The rules read figures only; the case rows are for --junit's test cases, the
        # judge identity --calibration checks and the pairing with a baseline.
        rows = junit is not None or calibration is not None or compared
        report, run = report_and_run(source, store, setting, rows=rows)
        check = _calibration_check(report, source, bool(inputs), store, calibration, bounds, run)
        report = corrected(report, check)
        against = _baseline(source, baseline, run, store, setting) if compared else None
        results = evaluate_gates(report, rules, against)
        if check is not None:
            results = [*check.results(), *results]
    outcome = GateOutcome.of(results, report)
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
    if not outcome.passed:
        raise typer.Exit(1)


def _gate_composite(
    source: str,
    report: Any,
    rules: list[str],
    junit: Path | None,
    markdown: Path | None,
    confidence: float | None,
    interval: str | None,
) -> None:
    """Gate a composite report file: rules on its figures (``composite_pass>=0.8``,
    ``strict_pass.low>=0.5``, ``statuses.error==0``), read at the level it was written at."""
    import sys

    from assay.errors import AssayConfigError
    from assay.gates import GateOutcome, evaluate_gates, parse_rule
    from assay.render import render
    from assay.report import CompositeReport

    if junit is not None or markdown is not None:
        raise AssayConfigError(
            f"{source} is a composite report: --junit and --markdown summarize a report of "
            "`assay score` or `assay run`; gate the composite without them"
        )
    if confidence is not None or interval is not None:
        raise AssayConfigError(
            f"{source} is a composite report: its intervals are read as written; rescore "
            "with `assay composite --confidence/--interval` for another level"
        )
    parsed = [parse_rule(text, CompositeReport) for text in rules]
    outcome = GateOutcome.of(evaluate_gates(report, parsed))
    sys.stdout.write(render(outcome, "text"))
    if not outcome.passed:
        raise typer.Exit(1)


def _append_step_summary(path: str, summary: str) -> None:
    """Append the gate's Markdown summary to the file ``$GITHUB_STEP_SUMMARY`` names."""
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(escape_controls(summary) + "\n")
    except OSError as err:  # a name too long, a folder that does not exist
        raise AssayConfigError(
            f"GITHUB_STEP_SUMMARY {path}: cannot be written: {err.strerror or err}"
        ) from None
