"""``assay plan``: how many cases a decision needs, before the run (docs/planning.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, OUTPUT, STORE, format_option

if TYPE_CHECKING:
    from assay.cases import Case
    from assay.planning import Pilot


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
    from assay.errors import AssayConfigError
    from assay.formats import formats
    from assay.planning import QUESTIONS
    from assay.planning import plan as make_plan
    from assay.render import render

    format = output_format(format, output, formats("plan"))
    setting = interval_setting(confidence, interval)
    if question not in QUESTIONS:
        raise AssayConfigError(
            f"assay plan {question}: unknown question; choose one of {', '.join(QUESTIONS)}"
        )
    _check_fraction("--power", power)
    _check_fraction("--assurance", assurance)
    for option, value in (
        ("--width", width),
        ("--drop", drop),
        ("--margin", margin),
    ):
        if value is not None:
            _check_fraction(option, value)
    for option, value in (
        ("--expected-rate", expected_rate),
        ("--discordance", discordance),
        ("--baseline-rate", baseline_rate),
    ):
        if value is not None and not 0 <= value <= 1:
            raise AssayConfigError(f"{option} {value:g}: must be between 0 and 1")
    if not -1 < difference < 1:
        raise AssayConfigError(f"--difference {difference:g}: must be between -1 and 1")
    if cases is not None and cases < 2:
        raise AssayConfigError(f"--cases {cases}: must be at least 2")
    if replications is not None and replications < 100:
        raise AssayConfigError(f"--replications {replications}: must be at least 100")
    if trials is not None and trials < 1:
        raise AssayConfigError(f"--trials {trials}: must be at least 1")
    inputs: list[Path] = []
    chosen_trials = trials
    given_cases = cases
    if suite is not None:
        from assay.load import load_suite

        loaded = load_suite(suite)
        inputs.append(suite)
        concurrency = loaded.settings.concurrency if concurrency is None else concurrency
        if chosen_trials is None and question in ("rate", "detectable"):
            # a paired plan over trials needs how they agree: asked for, never implied
            chosen_trials = loaded.settings.trials
        if question == "detectable" and given_cases is None and dataset is None:
            given_cases = _real_cases(loaded.load_dataset().cases)
    if dataset is not None:
        from assay.load import load_dataset

        if given_cases is not None:
            raise AssayConfigError("--cases and --dataset: give one of them")
        inputs.append(dataset)
        given_cases = _real_cases(load_dataset(dataset).cases)
    if question == "detectable" and given_cases is None:
        raise AssayConfigError(
            "assay plan detectable: give --cases N, --dataset FILE or --suite SUITE"
        )
    if concurrency is not None and concurrency < 1:
        raise AssayConfigError(f"--concurrency {concurrency}: must be at least 1")
    measured = _pilot(pilot, store, prices) if pilot is not None else None
    try:
        made = make_plan(
            question,  # type: ignore[arg-type]  # checked against QUESTIONS above
            width=width,
            expected_rate=expected_rate,
            assurance=assurance,
            drop=drop,
            margin=margin,
            difference=difference,
            discordance=discordance,
            baseline_rate=baseline_rate,
            cases=given_cases,
            power=power,
            trials=1 if chosen_trials is None else chosen_trials,
            interval=setting,
            pilot=measured,
            concurrency=concurrency,
            **({} if replications is None else {"replications": replications}),
            **({} if seed is None else {"seed": seed}),
        )
    except ValueError as err:
        raise AssayConfigError(f"assay plan {question}: {err}") from None
    emit(render(made, format), output, inputs)


def _check_fraction(option: str, value: float) -> None:
    from assay.errors import AssayConfigError

    if not 0 < value < 1:
        raise AssayConfigError(f"{option} {value:g}: must be between 0 and 1 (exclusive)")


def _real_cases(cases: Sequence[Case]) -> int:
    return sum(1 for case in cases if not case.synthetic)


def _pilot(run_id: str, store: str | None, prices: Path | None) -> Pilot:
    from assay.load import load_prices
    from assay.runs import pilot_of
    from assay.store import open_store

    table = load_prices(prices) if prices is not None else None
    opened = open_store(store, create=False)
    try:
        return pilot_of(opened, run_id, prices=table)
    finally:
        opened.close()
