"""A dry run: what a suite's run would send and take, found without calling its target.

The forecast needs no request: it scales the usage per call that a past run recorded
(the suite's last stored run with the same target configuration, or a pilot run named
outright) with ``planning.forecast``, the function ``assay plan`` forecasts with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.cases import content_hash
from assay.errors import StoreError
from assay.gates import sequential_texts
from assay.load import Suite, load_prices
from assay.planning import BudgetFit, Forecast, budget_fit, forecast
from assay.runner._prepare import prepare_target
from assay.runner._run import Overrides, budget_for, options_for
from assay.runner._select import Selection, select
from assay.runs import pilot_of
from assay.store import open_store


@dataclass(frozen=True)
class DryRun:
    """What the selected case-trials would send and take. ``requests`` is None when the
    target has no request to show; ``forecast`` is None when no past run gave usage
    (``unknown`` says why); ``fit`` is the forecast against the run's budget, if any."""

    target: str
    case_trials: int
    requests: list[dict[str, Any]] | None
    forecast: Forecast | None
    source: str
    """Where the forecast's usage comes from, in words ('the suite's last stored run')."""
    unknown: str | None
    budget: dict[str, Any] | None
    fit: BudgetFit | None
    sequential: bool = False
    """Whether the run would stop once its gates are decided (``--until-decided``, or a
    gate marked ``sequential: true``): the forecast is then the most it can take."""


def dry_run(
    suite: Suite,
    store: str | None,
    selection: Selection | None = None,
    overrides: Overrides | None = None,
    pilot: str | None = None,
) -> DryRun:
    """The requests and the forecast of running ``suite``'s selected cases, calling
    nothing: usage per call from stored run ``pilot`` (an id, prefix or name) when given,
    else from the last stored run of the suite's name with the same target configuration.
    A missing pilot run raises as reading a run does; no run to forecast from is not an
    error (``unknown`` says so)."""
    overrides = overrides or Overrides()
    options = options_for(suite, overrides)
    full = suite.load_dataset()
    chosen = select(full, selection or Selection())
    target = suite.build_target()
    prepare_target(target, full)
    shown: list[dict[str, Any]] | None = []
    for case in chosen.cases:
        request = target.request(case)
        if request is None:
            shown = None
            break
        assert shown is not None
        shown.append({"case": case.id, **request})
    budget = budget_for(suite, overrides, target)
    limits = budget[0] if budget is not None else None
    given = overrides.prices
    prices = load_prices(Path(given)) if given is not None else suite.price_table()
    case_trials = len(chosen.cases) * options.trials
    name = (suite.settings.name or "").strip() or suite.path.stem
    run_id: str | None
    unknown: str | None
    if pilot is not None:
        run_id, unknown = pilot, None
        source = "the pilot run given"
    else:
        run_id, unknown = _last_run(store, name, content_hash(target.config()))
        source = f"the last stored run of suite {name!r} with this target configuration"
    made = None
    if run_id is not None:
        opened = open_store(store, create=False)
        try:
            measured = pilot_of(opened, run_id, prices=prices)
        finally:
            opened.close()
        if measured.calls == 0:
            unknown = f"run {measured.run_id} called the target for no case-trial"
        else:
            made = forecast(measured, len(chosen.cases), options.trials, options.concurrency)
    return DryRun(
        target=target.name,
        case_trials=case_trials,
        requests=shown,
        forecast=made,
        source=source,
        unknown=unknown,
        budget=limits,
        fit=budget_fit(made, limits) if made is not None and limits is not None else None,
        sequential=overrides.until_decided or bool(sequential_texts(suite.settings.gates)),
    )


def _last_run(store: str | None, name: str, target_hash: str) -> tuple[str | None, str | None]:
    """The id of the newest stored run of suite ``name`` whose target configuration hashes
    to ``target_hash`` (None, and why there is none)."""
    try:
        opened = open_store(store, create=False)
    except StoreError as err:
        if err.kind == "absent":
            return None, f"no run store yet, so no stored run of suite {name!r}"
        return None, f"the run store cannot be read ({err})"
    try:
        named = [r for r in opened.list_runs() if r.suite_name == name]
    finally:
        opened.close()
    if not named:
        return None, f"no stored run of suite {name!r}"
    same = next((r for r in named if r.target_hash == target_hash), None)
    if same is None:
        return None, (
            f"no stored run of suite {name!r} with this target configuration (its last run, "
            f"{named[0].id}, ran another one)"
        )
    return same.id, None
