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
    from assay.runner import RunOutcome, RunRequest

SUITE = typer.Argument(None, help="Suite file (YAML). Optional with --resume.")
CONCURRENCY = typer.Option(None, help="Cases in flight at once.")
TRIALS = typer.Option(None, help="Runs of every case.")
TIMEOUT = typer.Option(
    None, "--timeout", help="Seconds one call to the target may take (suite: timeout_s)."
)
RETRIES = typer.Option(
    None, help="Extra attempts after a timeout, 429, 5xx or connection error (0-20)."
)
RPM = typer.Option(
    None, "--rpm", help="At most this many calls (retries included) start per minute."
)
LIMIT = typer.Option(None, help="Run only the first N selected cases.")
SLICE = typer.Option(None, "--slice", help="Run only these slices (a,b).")
IDS = typer.Option(None, "--ids", help="Run only these case ids (A,B).")
SPLIT = typer.Option("dev", "--split", help="dev, heldout or all; held-out cases need --confirm.")
CONFIRM = typer.Option(
    False, "--confirm", help="Run held-out cases (the run is counted and marked held-out)."
)
STORE = typer.Option(
    None, "--store", help="Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."
)
FORMAT = format_option("report", notes={"html": "with traces"})
OUTPUT = typer.Option(None, "--output", "-o", help="Write the report here.")
NAME = typer.Option(
    None,
    "--name",
    help="Name the run (unique in the store): the name finds it wherever a run id does.",
)
RESUME = typer.Option(
    None, "--resume", help="Finish this stored run: run only its case-trials not yet recorded."
)
TRACE = typer.Option(None, "--trace/--no-trace", help="Record spans.")
SET = typer.Option(
    [],
    "--set",
    help="Run a matrix: KEY=V1,V2 gives one variant per value (target.* or grader); "
    "several --set make a cross product, crossed with the suite's variants.",
)
CACHE = typer.Option(
    None,
    "--cache/--no-cache",
    help="Serve replies from the response cache and keep new ones (suite: cache).",
)
CACHE_PATH = typer.Option(
    None, "--cache-path", help="The cache file (default: cache.db beside the store's file)."
)
OTLP_ENDPOINT = typer.Option(
    None,
    "--otlp",
    "--otlp-endpoint",
    help="Also export spans and metrics to this OTLP/HTTP collector.",
)
PRICES = typer.Option(
    None,
    "--prices",
    help="Price table (YAML: model -> USD per million input/output tokens) used instead "
    "of the suite's prices; its hash is recorded with the run.",
)
RECEIVE_SPANS = typer.Option(
    False,
    "--receive-spans",
    help="Receive the application's own spans over OTLP/HTTP on 127.0.0.1 (protobuf or "
    "JSON, /v1/traces) and store them with the case-trial whose traceparent they carry.",
)
RECEIVE_PORT = typer.Option(
    4318, "--receive-port", help="Port of the --receive-spans receiver (0: any free port)."
)
DRY_RUN = typer.Option(
    False,
    "--dry-run",
    help="Send nothing: print the request each selected case would send (as JSON, when "
    "the target has one to show) and forecast the run's calls, tokens, cost and wall time "
    "(against its budget) from the suite's last stored run.",
)
PILOT = typer.Option(
    None,
    "--pilot",
    help="With --dry-run: forecast from this stored run (id, prefix or name) instead of "
    "the suite's last one.",
)
UNTIL_DECIDED = typer.Option(
    False,
    "--until-decided",
    help="Draw cases in a seeded random order and stop once every gate on a case rate is "
    "decided (an anytime-valid test: wrong at most 5% of the time).",
)
SEED = typer.Option(
    None,
    "--seed",
    help="With --until-decided: the seed of the random order (default: a random one, "
    "recorded with the run).",
)
NOT_WORSE_THAN = typer.Option(
    None,
    "--not-worse-than",
    help="With --until-decided: also gate on doing no worse than this stored run, case by "
    "case (a sequential paired test over the cases where the two runs differ).",
)
EXECUTOR = typer.Option(
    None,
    "--executor",
    help="local (default) or ray: call the target from Ray actors (pip install 'assay[ray]').",
)
ADDRESS = typer.Option(
    None,
    "--address",
    help="With --executor ray: the cluster to join (auto, ray://HOST:10001); "
    "default: start Ray on this machine.",
)
MAX_COST = typer.Option(
    None,
    "--max-cost",
    help="A budget in USD (needs a price table): no case-trial starts once the next could "
    "exceed it (suite: max_cost).",
)
MAX_CALLS = typer.Option(None, "--max-calls", help="A budget of target calls (suite: max_calls).")
MAX_TOKENS = typer.Option(
    None, "--max-tokens", help="A budget of tokens, input and output (suite: max_tokens)."
)


def _ids(value: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip()) if value else ()


def _say(text: str) -> None:
    typer.echo(f"assay: {text}", err=True)


def run(
    suite: Path | None = SUITE,
    concurrency: int | None = CONCURRENCY,
    trials: int | None = TRIALS,
    timeout: float | None = TIMEOUT,
    retries: int | None = RETRIES,
    rpm: float | None = RPM,
    limit: int | None = LIMIT,
    slice_: str | None = SLICE,
    ids: str | None = IDS,
    split: str = SPLIT,
    confirm: bool = CONFIRM,
    store: str | None = STORE,
    format: str | None = FORMAT,
    output: Path | None = OUTPUT,
    name: str | None = NAME,
    resume: str | None = RESUME,
    trace: bool | None = TRACE,
    set_: list[str] = SET,
    cache: bool | None = CACHE,
    cache_path: Path | None = CACHE_PATH,
    otlp_endpoint: str | None = OTLP_ENDPOINT,
    prices: Path | None = PRICES,
    receive_spans: bool = RECEIVE_SPANS,
    receive_port: int = RECEIVE_PORT,
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    trial_policy: str | None = TRIAL_POLICY,
    product_selects_best: bool = PRODUCT_SELECTS_BEST,
    dry_run: bool = DRY_RUN,
    pilot: str | None = PILOT,
    until_decided: bool = UNTIL_DECIDED,
    seed: int | None = SEED,
    not_worse_than: str | None = NOT_WORSE_THAN,
    executor: str | None = EXECUTOR,
    address: str | None = ADDRESS,
    max_cost: float | None = MAX_COST,
    max_calls: int | None = MAX_CALLS,
    max_tokens: int | None = MAX_TOKENS,
) -> None:
    """Run SUITE: call its target for every case and trial, store the run, print its report.

    Ctrl-C stops cleanly: what finished is stored and the run is marked interrupted;
    `assay run --resume RUN_ID` then runs only the case-trials not yet recorded. A run its
    budget cut short exits 1, as a failed gate does.
    """
    from assay.cli._gating import check_gates
    from assay.cli._matrix_run import run_matrix_command
    from assay.cli._options import check_policy_text, interval_setting, output_format
    from assay.cli._progress import RichProgress
    from assay.runner import Overrides, RunRequest, Selection, receiving_spans, run_request

    format = output_format(format, output)
    setting = interval_setting(confidence, interval)
    check_policy_text(trial_policy, product_selects_best)
    request = RunRequest(
        suite=suite,
        resume=resume,
        store=store,
        name=name,
        sets=tuple(set_),
        overrides=Overrides(
            concurrency=concurrency,
            trials=trials,
            timeout_s=timeout,
            retries=retries,
            rpm=rpm,
            trace=trace,
            cache=cache,
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
        ),
        selection=Selection(_ids(slice_), _ids(ids), limit, split, confirm),
        otlp_endpoint=otlp_endpoint,
        receive_spans=receive_spans,
        receive_port=receive_port,
        interval=setting,
        trial_policy=trial_policy,
        product_selects_best=product_selects_best,
        dry_run=dry_run,
        pilot=pilot,
    )
    loaded = request.load()
    if request.is_matrix(loaded):
        with receiving_spans(receive_spans, store, receive_port, _say):
            run_matrix_command(
                suite,
                resume,
                set_,
                request.run_overrides,
                request.selection,
                store,
                format,
                output,
                otlp_endpoint,
                setting,
            )
        return
    single = request.single(loaded)
    if dry_run:
        assert single is not None  # a suite file, neither --resume nor a matrix (above)
        _dry_run(single, request)
        return
    progress = RichProgress(request.label)
    done = run_request(request, single, progress=progress, notify=_say, keep_spans=format == "html")
    _show(done, format, output)
    if done.interrupted is not None:
        _say(done.interrupted)
        raise typer.Exit(130)
    gates_ok = check_gates(done.report, done.rules, done.shortfall, done.baseline)
    for failure in done.failures:
        _say(failure)
    if not gates_ok or done.failures:
        raise typer.Exit(1)


def _show(done: RunOutcome, format: str, output: Path | None) -> None:
    """The report (to ``output``, else stdout), after what there is to say about the run."""
    from assay.render import render
    from assay.report import TracedReport

    if format == "html":  # with the trace waterfalls, as `assay report -f html` draws them
        text = render(TracedReport(done.report, done.spans), format)
    else:
        text = render(done.report, format, color=wants_color(output))
    for notice in done.notices:
        _say(notice)
    if format in ("text", "markdown"):
        text = f"{done.headline}\n\n{text}"
    else:  # a machine-readable report stays exactly that on stdout
        typer.echo(done.headline, err=True)
    emit(text, output, what=described(done.report, format, f"run {done.result.run_id}"))


def _dry_run(suite: Suite, request: RunRequest) -> None:
    """The requests on stdout (as JSON, when the target shows them); on stderr the forecast
    of the run and whether it fits its budget, or why there is no forecast."""
    import json

    from assay.render.plan import budget_fit_lines, forecast_lines
    from assay.runner import dry_run

    found = dry_run(suite, request.store, request.selection, request.run_overrides, request.pilot)
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
