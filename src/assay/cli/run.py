"""``assay run``: run a suite's target over its cases, store the run, print the report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import (
    CONFIDENCE,
    INTERVAL,
    PRODUCT_SELECTS_BEST,
    TRIAL_POLICY,
    format_option,
)
from assay.cli._output import described, emit, wants_color

if TYPE_CHECKING:
    from assay.load import Suite
    from assay.report import Report
    from assay.runner import Overrides, Selection
    from assay.store import RunStore
    from assay.tracing import SpanReceiver


def _ids(value: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip()) if value else ()


def _start_receiver(store: str | None, port: int) -> tuple[SpanReceiver, RunStore]:
    from assay.errors import AssayConfigError
    from assay.store import open_store

    try:
        import opentelemetry.proto  # noqa: F401

        from assay.tracing import SpanReceiver
    except ImportError:
        raise AssayConfigError(
            "--receive-spans needs the OTLP protobuf package: pip install 'assay[otlp]'"
        ) from None
    own = open_store(store)  # the receiver's thread writes through its own connections
    try:
        receiver = SpanReceiver(own.trace_links, own.add_spans, port).start()
    except OSError as exc:
        own.close()
        raise AssayConfigError(
            f"--receive-port {port}: cannot listen on 127.0.0.1 ({exc})"
        ) from None
    typer.echo(
        f"assay: receiving spans on {receiver.endpoint} (OTLP/HTTP, protobuf or JSON)", err=True
    )
    return (receiver, own)


def _stop_receiver(started: tuple[SpanReceiver, RunStore]) -> None:
    receiver, own = started
    try:
        receiver.stop()
    finally:
        own.close()
    typer.echo(
        f"assay: received {receiver.received} application span(s): {receiver.attached} "
        "attached to their case-trials",
        err=True,
    )
    if receiver.dropped or receiver.rejected:
        typer.echo(
            f"assay: warning: {receiver.dropped} span(s) of traces no case-trial started were "
            f"dropped; {receiver.rejected} malformed export(s) refused",
            err=True,
        )


def _grade_from_spans(runs: RunStore, run_id: str, loaded: Suite | None) -> int:
    """Judge again the case-trials of ``run_id`` that returned no trajectory but whose
    received spans describe one (with the suite's grader, or the one the run recorded),
    and keep the run's headline figures in step; how many were judged again."""
    from assay.errors import AssayConfigError
    from assay.runner import grade_from_spans, recorded_grader
    from assay.runs import headline, report_for_run

    info = runs.get_run(run_id)
    try:
        grader = loaded.grader() if loaded is not None else recorded_grader(info)[0]
    except AssayConfigError as err:
        typer.echo(
            f"assay: warning: the case-trials were not judged on their spans' trajectories "
            f"({err}); `assay regrade {run_id} --grader ...` judges them",
            err=True,
        )
        return 0
    rejudged = grade_from_spans(runs, run_id, grader)
    if rejudged:
        runs.finish_run(run_id, info.status, headline(report_for_run(runs, run_id)))
        typer.echo(
            f"assay: {rejudged} case-trial(s) judged on the trajectory their spans describe",
            err=True,
        )
    return rejudged


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
    split: str = typer.Option(
        "dev", "--split", help="dev, heldout or all; held-out cases need --confirm."
    ),
    confirm: bool = typer.Option(
        False, "--confirm", help="Run held-out cases (the run is counted and marked held-out)."
    ),
    store: str | None = typer.Option(
        None, "--store", help="Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."
    ),
    format: str | None = format_option("report", notes={"html": "with traces"}),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here."),
    name: str | None = typer.Option(
        None,
        "--name",
        help="Name the run (unique in the store): the name finds it wherever a run id does.",
    ),
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
    prices: Path | None = typer.Option(
        None,
        "--prices",
        help="Price table (YAML: model -> USD per million input/output tokens) used instead "
        "of the suite's prices; its hash is recorded with the run.",
    ),
    receive_spans: bool = typer.Option(
        False,
        "--receive-spans",
        help="Receive the application's own spans over OTLP/HTTP on 127.0.0.1 (protobuf or "
        "JSON, /v1/traces) and store them with the case-trial whose traceparent they carry.",
    ),
    receive_port: int = typer.Option(
        4318, "--receive-port", help="Port of the --receive-spans receiver (0: any free port)."
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    trial_policy: str | None = TRIAL_POLICY,
    product_selects_best: bool = PRODUCT_SELECTS_BEST,
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Send nothing: print the request each selected case would send (as JSON, when "
        "the target has one to show) and forecast the run's calls, tokens, cost and wall time "
        "(against its budget) from the suite's last stored run.",
    ),
    pilot: str | None = typer.Option(
        None,
        "--pilot",
        help="With --dry-run: forecast from this stored run (id, prefix or name) instead of "
        "the suite's last one.",
    ),
    until_decided: bool = typer.Option(
        False,
        "--until-decided",
        help="Draw cases in a seeded random order and stop once every gate on a case rate is "
        "decided (an anytime-valid test: wrong at most 5% of the time).",
    ),
    seed: int | None = typer.Option(
        None,
        "--seed",
        help="With --until-decided: the seed of the random order (default: a random one, "
        "recorded with the run).",
    ),
    not_worse_than: str | None = typer.Option(
        None,
        "--not-worse-than",
        help="With --until-decided: also gate on doing no worse than this stored run, case by "
        "case (a sequential paired test over the cases where the two runs differ).",
    ),
    executor: str | None = typer.Option(
        None,
        "--executor",
        help="local (default) or ray: call the target from Ray actors (pip install 'assay[ray]').",
    ),
    address: str | None = typer.Option(
        None,
        "--address",
        help="With --executor ray: the cluster to join (auto, ray://HOST:10001); "
        "default: start Ray on this machine.",
    ),
    max_cost: float | None = typer.Option(
        None,
        "--max-cost",
        help="A budget in USD (needs a price table): no case-trial starts once the next could "
        "exceed it (suite: max_cost).",
    ),
    max_calls: int | None = typer.Option(
        None, "--max-calls", help="A budget of target calls (suite: max_calls)."
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", help="A budget of tokens, input and output (suite: max_tokens)."
    ),
) -> None:
    """Run SUITE: call its target for every case and trial, store the run, print its report.

    Ctrl-C stops cleanly: what finished is stored and the run is marked interrupted;
    `assay run --resume RUN_ID` then runs only the case-trials not yet recorded. A run its
    budget cut short exits 1, as a failed gate does.
    """
    from assay.cli._gating import (
        check_gates,
        stored_rules,
        suite_calibration,
    )
    from assay.cli._options import (
        check_policy,
        check_policy_text,
        interval_setting,
        output_format,
    )
    from assay.cli._progress import RichProgress
    from assay.errors import AssayConfigError
    from assay.gates import needs_baseline, paired_rules
    from assay.load import load_suite
    from assay.metrics import DEFAULT_INTERVAL
    from assay.render import render
    from assay.runner import Overrides, RunControl, Selection, resume_run, run_suite
    from assay.runs import corrected, report_for_run, stored_calibration, suite_baseline
    from assay.store import NAME_KEY, open_store

    format = output_format(format, output)
    setting = interval_setting(confidence, interval)
    check_policy_text(trial_policy, product_selects_best)
    if suite is None and resume is None:
        raise AssayConfigError("give a suite file to run, or --resume RUN_ID")
    overrides = Overrides(
        concurrency=concurrency,
        trials=trials,
        timeout_s=timeout,
        retries=retries,
        rpm=rpm,
        trace=True if receive_spans else trace,
        cache=True if cache_path is not None and cache is None else cache,
        cache_path=str(cache_path) if cache_path is not None else None,
        executor=executor,
        address=address,
        prices=str(prices) if prices is not None else None,
        until_decided=until_decided,
        seed=seed,
        not_worse_than=not_worse_than,
        max_cost=max_cost,
        max_calls=max_calls,
        max_tokens=max_tokens,
    )
    if resume is not None and any(v is not None for v in (max_cost, max_calls, max_tokens)):
        raise AssayConfigError(
            "--max-cost, --max-calls and --max-tokens budget a new run; a resumed run keeps "
            "the budget it was started with"
        )
    if resume is not None and prices is not None:
        raise AssayConfigError(
            "--prices prices a new run; a resumed run keeps its own price table "
            f"(re-price it with: assay report {resume} --prices {prices})"
        )
    if resume is not None and (until_decided or seed is not None or not_worse_than):
        raise AssayConfigError(
            "--until-decided and --seed start a sequential run; a resumed run keeps how it "
            "was started (its order and gates are stored with it)"
        )
    if pilot is not None and not dry_run:
        raise AssayConfigError("--pilot gives a dry run's forecast its usage; add --dry-run")
    if dry_run and (resume is not None or set_):
        raise AssayConfigError("--dry-run needs a suite file (not --resume, not --set)")
    if seed is not None and not 0 <= seed < 2**63:
        raise AssayConfigError(f"--seed {seed}: must be a whole number from 0 to 2^63-1")
    selection = Selection(_ids(slice_), _ids(ids), limit, split, confirm)
    if resume is not None and set_:
        raise AssayConfigError("--resume finishes the stored matrix's own variants; drop --set")
    from assay.cli._matrix_run import run_matrix_command

    # Loaded once: whether it declares variants, and (when it does not) the run's suite.
    loaded = load_suite(suite) if suite is not None and resume is None and not set_ else None
    variants = loaded is not None and bool(loaded.settings.variants)
    if (resume is not None and resume.startswith("mx-")) or (
        suite is not None and resume is None and (set_ or variants)
    ):
        if name is not None:
            raise AssayConfigError("--name names one run; a matrix's runs are named by variant")
        if until_decided or seed is not None or not_worse_than:
            raise AssayConfigError("--until-decided runs one suite, not a matrix")
        if dry_run:
            raise AssayConfigError(
                "--dry-run shows one suite's run, not a matrix's: dry-run a variant's own suite"
            )
        if executor == "ray":
            raise AssayConfigError("--executor ray runs one suite at a time, not a matrix")
        receiving = _start_receiver(store, receive_port) if receive_spans else None
        try:
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
                setting,
            )
        finally:
            if receiving is not None:
                _stop_receiver(receiving)
        return
    if resume is not None and not selection.empty:
        raise AssayConfigError(
            "--resume runs the stored run's own cases; drop --limit/--slice/--ids"
        )
    if loaded is None and suite is not None:
        loaded = load_suite(suite)
    if dry_run:
        assert loaded is not None  # a suite file, neither --resume nor a matrix (above)
        _dry_run(loaded, selection, overrides, store, pilot)
        return
    if name is not None and resume is not None:
        raise AssayConfigError("--name names a new run; a resumed run keeps its name")
    rules = loaded.gate_rules() if loaded is not None else []
    runs = open_store(store)
    if name is not None:
        try:
            runs.check_new_name(name)
        except BaseException:
            runs.close()
            raise
    receiver = _start_receiver(store, receive_port) if receive_spans else None
    try:
        label = f"run {resume}"
        if suite is not None:
            label = f"{suite.parent.name}/{suite.name}".lstrip("/")
        control = RunControl(
            progress=RichProgress(label),
            handle_signals=True,
            otlp_endpoint=otlp_endpoint,
            metadata={NAME_KEY: name} if name is not None else {},
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
        rejudged = 0
        if receiver is not None:  # every span is in: judge on the trajectories they describe
            started, receiver = receiver, None
            _stop_receiver(started)
            rejudged = _grade_from_spans(runs, result.run_id, loaded)
        if loaded is not None:
            check = suite_calibration(loaded)
        else:  # the calibration the suite the run was started with requires
            check = stored_calibration(runs.get_run(result.run_id))
        blocked = None if check is None else check.shortfall()
        policy = None
        if trial_policy is not None:
            trials_run = runs.get_run(result.run_id).trials
            policy = check_policy(trial_policy, trials_run, product_selects_best)
        if rejudged or setting != DEFAULT_INTERVAL or policy is not None:
            # the run as stored, reported at the asked level and policy
            report = report_for_run(runs, result.run_id, interval=setting, policy=policy)
        report = corrected(report, check)
        baseline = suite_baseline(runs, result.run_id, setting) if needs_baseline(rules) else None
    finally:
        if receiver is not None:
            _stop_receiver(receiver)
        runs.close()
    if format == "html":  # with the trace waterfalls, as `assay report -f html` draws them
        from assay.report import TracedReport

        again = open_store(store, create=False)  # after the receiver stored what it got
        try:
            spans = again.spans(result.run_id)
        finally:
            again.close()
        text = render(TracedReport(report, tuple(spans)), format)
    else:
        text = render(report, format, color=wants_color(output))
    sampled = report.sequential
    if resume is not None and result.ran == 0 and sampled is not None and sampled.stopped_early:
        typer.echo(
            f"assay: nothing left to run: run {result.run_id} was decided after "
            f"{sampled.decided_at or sampled.drawn} of {sampled.cases} cases",
            err=True,
        )
    elif resume is not None and result.ran == 0:
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
    emit(text, output, what=described(report, format, f"run {result.run_id}"))
    if result.status == "interrupted":
        typer.echo(
            f"assay: run {result.run_id} interrupted; finish it with "
            f"`assay run --resume {result.run_id}`",
            err=True,
        )
        raise typer.Exit(130)
    gates_ok = check_gates(report, [*rules, *paired_rules(report)], blocked, baseline)
    nothing = nothing_graded(report)
    if nothing is not None:
        typer.echo(f"assay: nothing was graded: {nothing}", err=True)
    cut = report.budget is not None and report.budget.reached
    if cut:
        assert report.budget is not None
        ran = report.budget.case_trials - len(report.budget.not_run)
        typer.echo(
            f"assay: run {result.run_id} was cut short by its budget: {ran} of "
            f"{report.budget.case_trials} case-trials run (exit 1, as a failed gate)",
            err=True,
        )
    if not gates_ok or nothing is not None or cut:
        raise typer.Exit(1)


def _dry_run(
    suite: Suite, selection: Selection, overrides: Overrides, store: str | None, pilot: str | None
) -> None:
    """The requests on stdout (as JSON, when the target shows them); on stderr the forecast
    of the run and whether it fits its budget, or why there is no forecast."""
    import json

    from assay.render.plan import budget_fit_lines, forecast_lines
    from assay.runner import dry_run

    found = dry_run(suite, store, selection, overrides, pilot)
    if found.requests is not None:
        typer.echo(json.dumps(found.requests, indent=2, ensure_ascii=False))
    else:
        typer.echo(
            f"assay: dry run: the {found.target} target has no request to show; nothing is sent",
            err=True,
        )
    fc = found.forecast
    if fc is None:
        lines = [
            f"forecast unknown: {found.unknown}; a forecast needs the usage of a past run "
            "(run the suite once, or give --pilot RUN)"
        ]
        if found.budget is not None:
            lines.append("  the budget cannot be checked without a forecast")
    else:
        lines = [f"forecast from run {fc.from_run} ({found.source}):"]
        lines += [f"  {x}" for x in forecast_lines(fc)]
        if found.fit is not None:
            lines += [f"  {x}" for x in budget_fit_lines(found.fit)]
        if found.sequential:
            lines.append(
                "  a sequential run stops once its gates are decided: this is the most it "
                "can take, run to the last case"
            )
    typer.echo("\n".join(lines), err=True)


def nothing_graded(report: Report) -> str | None:
    """Why a run produced nothing (every case-trial ended in error), or None."""
    counts = [report.statuses]
    if report.synthetic is not None:
        counts.append(report.synthetic.statuses)
    total = sum(c.total for c in counts)
    errors = sum(c.error for c in counts)
    if total == 0 or errors < total:
        return None
    first = next((row.reason for row in report.cases if row.status == "error"), "")
    example = f"; the first: {first}" if first else ""
    return f"all {total} case-trials of run {report.run_id} ended in error{example}"
