"""``assay plan``: how many cases a decision needs, before the run (docs/planning.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, OUTPUT, STORE, format_option


def plan(
    question: str = typer.Argument(
        ...,
        help="rate (estimate a rate to ±--width), drop (detect a drop of --drop), "
        "noninferiority (show the candidate within --margin of the baseline) or detectable "
        "(what --cases, --dataset or the suite's dataset can detect).",
    ),
    width: float | None = typer.Option(
        None, "--width", help="rate: the half-width wanted, as a fraction (0.05 = ±5 points)."
    ),
    expected_rate: float | None = typer.Option(
        None,
        "--expected-rate",
        help="rate: the rate expected (default: the pilot's; without one, the worst case).",
    ),
    assurance: float = typer.Option(
        0.95,
        "--assurance",
        help="rate, with an expected rate: the chance that the half-width is reached.",
    ),
    drop: float | None = typer.Option(
        None, "--drop", help="drop: the drop in task success to detect (0.05 = 5 points)."
    ),
    margin: float | None = typer.Option(
        None, "--margin", help="noninferiority: how much worse the candidate may be."
    ),
    difference: float = typer.Option(
        0.0,
        "--difference",
        help="noninferiority: the true difference expected, candidate − baseline.",
    ),
    discordance: float | None = typer.Option(
        None,
        "--discordance",
        help="The share of cases whose outcome flips between two runs of the same system "
        "(default: measured on the pilot's trials, else 2p(1 − p) at its rate).",
    ),
    baseline_rate: float | None = typer.Option(
        None, "--baseline-rate", help="The baseline's task success, without a pilot run."
    ),
    cases: int | None = typer.Option(None, "--cases", help="detectable: the number of cases."),
    dataset: Path | None = typer.Option(
        None, "--dataset", help="detectable: count the real cases of this dataset file."
    ),
    power: float = typer.Option(0.8, "--power", help="The power wanted (drop, noninferiority)."),
    trials: int | None = typer.Option(
        None,
        "--trials",
        help="Trials per case (rate, detectable, drop, noninferiority; default: the suite's "
        "for rate and detectable, else 1).",
    ),
    replications: int | None = typer.Option(
        None,
        "--replications",
        help="noninferiority over --trials: pairs of runs simulated per number of cases (at "
        "least 100; default 4,000).",
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="noninferiority over --trials: the simulation's seed (default: fixed)."
    ),
    pilot: str | None = typer.Option(
        None,
        "--pilot",
        "--baseline",
        help="A stored run (id or prefix) whose rate, trials and usage the plan uses.",
    ),
    suite: Path | None = typer.Option(
        None,
        "--suite",
        help="The suite to be run: its concurrency (the forecast's wall time), trials and dataset.",
    ),
    concurrency: int | None = typer.Option(
        None, "--concurrency", help="Calls in flight at once (default: the suite's)."
    ),
    prices: Path | None = typer.Option(
        None, "--prices", help="Price the forecast with this table instead of the pilot's own."
    ),
    store: str | None = STORE,
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    format: str | None = format_option("plan"),
    output: Path | None = OUTPUT,
) -> None:
    """How many cases (and trials) a decision needs, each number with the exact method it
    is computed by: the interval assay reports with, the exact McNemar test of `assay
    compare`, the exact power of its non-inferiority rule (simulated, seeded, over several
    trials). With a pilot run, the forecast of
    calls, tokens, cost and wall time (docs/planning.md)."""
    from assay.cli._options import interval_setting, output_format
    from assay.cli._output import emit
    from assay.formats import formats
    from assay.render import render
    from assay.runner import PlanRequest, plan_request

    format = output_format(format, output, formats("plan"))
    request = PlanRequest(
        question=question,
        width=width,
        expected_rate=expected_rate,
        assurance=assurance,
        drop=drop,
        margin=margin,
        difference=difference,
        discordance=discordance,
        baseline_rate=baseline_rate,
        cases=cases,
        dataset=dataset,
        power=power,
        trials=trials,
        replications=replications,
        seed=seed,
        pilot=pilot,
        suite=suite,
        concurrency=concurrency,
        prices=prices,
        store=store,
        interval=interval_setting(confidence, interval),
    )
    planned = plan_request(request)
    emit(render(planned.plan, format), output, list(planned.inputs))
