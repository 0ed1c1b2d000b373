"""What ``assay plan`` is asked: a question with its figures, checked together before
anything is read (``AssayConfigError`` naming the flag), and the plan made from them, the
suite, dataset and pilot run they name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.cases import Case
from assay.errors import AssayConfigError
from assay.load import load_dataset, load_prices, load_suite
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.planning import QUESTIONS, Pilot, Plan, plan
from assay.runs import pilot_of
from assay.store import open_store

__all__ = ["PlanRequest", "Planned", "plan_request"]


@dataclass(frozen=True)
class PlanRequest:
    """How many cases ``question`` (rate, drop, noninferiority, detectable) needs, with
    the figures it is asked with; made, it refuses a figure out of its range."""

    question: str
    width: float | None = None
    expected_rate: float | None = None
    assurance: float = 0.95
    drop: float | None = None
    margin: float | None = None
    difference: float = 0.0
    discordance: float | None = None
    baseline_rate: float | None = None
    cases: int | None = None
    dataset: Path | None = None
    """The dataset file whose real cases are counted (detectable)."""
    power: float = 0.8
    trials: int | None = None
    replications: int | None = None
    seed: int | None = None
    pilot: str | None = None
    """The stored run whose rate, trials and usage the plan uses."""
    suite: Path | None = None
    """The suite to be run: its concurrency, trials and dataset."""
    concurrency: int | None = None
    prices: Path | None = None
    store: str | None = None
    interval: IntervalSetting = field(default=DEFAULT_INTERVAL)

    def __post_init__(self) -> None:
        if self.question not in QUESTIONS:
            raise AssayConfigError(
                f"assay plan {self.question}: unknown question; choose one of "
                f"{', '.join(QUESTIONS)}"
            )
        _check_fraction("--power", self.power)
        _check_fraction("--assurance", self.assurance)
        for option, value in (
            ("--width", self.width),
            ("--drop", self.drop),
            ("--margin", self.margin),
        ):
            if value is not None:
                _check_fraction(option, value)
        for option, value in (
            ("--expected-rate", self.expected_rate),
            ("--discordance", self.discordance),
            ("--baseline-rate", self.baseline_rate),
        ):
            if value is not None and not 0 <= value <= 1:
                raise AssayConfigError(f"{option} {value:g}: must be between 0 and 1")
        if not -1 < self.difference < 1:
            raise AssayConfigError(f"--difference {self.difference:g}: must be between -1 and 1")
        if self.cases is not None and self.cases < 2:
            raise AssayConfigError(f"--cases {self.cases}: must be at least 2")
        if self.replications is not None and self.replications < 100:
            raise AssayConfigError(f"--replications {self.replications}: must be at least 100")
        if self.trials is not None and self.trials < 1:
            raise AssayConfigError(f"--trials {self.trials}: must be at least 1")


@dataclass(frozen=True)
class Planned:
    """A plan, and the files it was made from (never written over)."""

    plan: Plan
    inputs: tuple[Path, ...]


def plan_request(request: PlanRequest) -> Planned:
    """The plan ``request`` asks for, with the suite's concurrency, trials and dataset,
    the dataset's real cases and the pilot run's figures; a question its figures cannot
    answer is an ``AssayConfigError``."""
    inputs: list[Path] = []
    trials = request.trials
    cases = request.cases
    concurrency = request.concurrency
    if request.suite is not None:
        loaded = load_suite(request.suite)
        inputs.append(request.suite)
        concurrency = loaded.settings.concurrency if concurrency is None else concurrency
        if trials is None and request.question in ("rate", "detectable"):
            # a paired plan over trials needs how they agree: asked for, never implied
            trials = loaded.settings.trials
        if request.question == "detectable" and cases is None and request.dataset is None:
            cases = _real_cases(loaded.load_dataset().cases)
    if request.dataset is not None:
        if cases is not None:
            raise AssayConfigError("--cases and --dataset: give one of them")
        inputs.append(request.dataset)
        cases = _real_cases(load_dataset(request.dataset).cases)
    if request.question == "detectable" and cases is None:
        raise AssayConfigError(
            "assay plan detectable: give --cases N, --dataset FILE or --suite SUITE"
        )
    if concurrency is not None and concurrency < 1:
        raise AssayConfigError(f"--concurrency {concurrency}: must be at least 1")
    pilot = request.pilot
    measured = _pilot(pilot, request.store, request.prices) if pilot is not None else None
    simulation: dict[str, Any] = {}
    if request.replications is not None:
        simulation["replications"] = request.replications
    if request.seed is not None:
        simulation["seed"] = request.seed
    try:
        made = plan(
            request.question,  # type: ignore[arg-type]  # checked against QUESTIONS when made
            width=request.width,
            expected_rate=request.expected_rate,
            assurance=request.assurance,
            drop=request.drop,
            margin=request.margin,
            difference=request.difference,
            discordance=request.discordance,
            baseline_rate=request.baseline_rate,
            cases=cases,
            power=request.power,
            trials=1 if trials is None else trials,
            interval=request.interval,
            pilot=measured,
            concurrency=concurrency,
            **simulation,
        )
    except ValueError as err:
        raise AssayConfigError(f"assay plan {request.question}: {err}") from None
    return Planned(made, tuple(inputs))


def _check_fraction(option: str, value: float) -> None:
    if not 0 < value < 1:
        raise AssayConfigError(f"{option} {value:g}: must be between 0 and 1 (exclusive)")


def _real_cases(cases: Sequence[Case]) -> int:
    return sum(1 for case in cases if not case.synthetic)


def _pilot(run_id: str, store: str | None, prices: Path | None) -> Pilot:
    table = load_prices(prices) if prices is not None else None
    opened = open_store(store, create=False)
    try:
        return pilot_of(opened, run_id, prices=table)
    finally:
        opened.close()
