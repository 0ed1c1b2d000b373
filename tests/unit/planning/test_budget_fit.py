"""A forecast against a budget: each limit set is checked, an exceeded one says about how
many case-trials run within it, and a limit the pilot's usage cannot check is said so."""

from __future__ import annotations

from assay.planning import Forecast, Pilot, budget_fit, forecast

PILOT = Pilot(
    run_id="r1",
    cases=10,
    trials=1,
    rate=0.5,
    calls=10,
    input_tokens_per_call=900.0,
    output_tokens_per_call=100.0,
    cost_per_call_usd=0.0137,
    latency_s=2.0,
)


def test_a_cost_limit_cuts_the_run_at_its_mean_cost_per_call() -> None:
    fc = forecast(PILOT, 100, 3, 4)
    fit = budget_fit(fc, {"max_cost": 3.0, "max_calls": None, "max_tokens": None})
    (check,) = fit.checks
    assert check.exceeded and check.forecast == fc.cost_usd
    assert check.runs == 218  # 3.00 / 0.0137 = 218.98
    assert fit.fits is False and fit.runs == 218 and fit.case_trials == 300


def test_the_tightest_exceeded_limit_decides_how_many_run() -> None:
    fc = forecast(PILOT, 100, 3, 4)
    fit = budget_fit(fc, {"max_cost": 3.0, "max_calls": 150, "max_tokens": 400_000})
    runs = {c.limit: c.runs for c in fit.checks}
    assert runs == {"max_cost": 218, "max_calls": 150, "max_tokens": 300}
    assert [c.exceeded for c in fit.checks] == [True, True, False]
    assert fit.runs == 150


def test_a_limit_met_exactly_fits() -> None:
    fc = Forecast(from_run="r", cases=3, trials=1, calls=3, cost_usd=0.3)
    fit = budget_fit(fc, {"max_cost": 0.3})
    assert fit.fits is True and fit.runs == 3
    over = budget_fit(fc.model_copy(update={"cost_usd": 0.3000001}), {"max_cost": 0.3})
    assert over.fits is False and over.runs == 2


def test_a_limit_without_usage_to_check_it_is_unknown() -> None:
    fc = Forecast(from_run="r", cases=3, trials=1, calls=3)
    fit = budget_fit(fc, {"max_cost": 1.0, "max_tokens": 10})
    assert fit.fits is None and fit.runs is None
    assert all(c.forecast is None and c.runs is None for c in fit.checks)
    both = budget_fit(fc, {"max_cost": 1.0, "max_calls": 2})
    assert both.fits is False and both.runs == 2
