"""assay.plan: each question answered by its exact method, with the assumptions it made
and the forecast from a pilot's usage."""

from __future__ import annotations

import json

import pytest

import assay
from assay.metrics import (
    IntervalSetting,
    cases_for_drop,
    cases_for_half_width,
    intraclass,
    mcnemar_power,
    rate_half_width,
    trials_drop_table,
)
from assay.planning import Pilot, plan
from assay.planning._noninferiority import PairedCells, noninferiority_power
from assay.render import render

PILOT = Pilot(
    run_id="r-1",
    cases=20,
    trials=2,
    rate=0.7,
    design_effect=1.6,
    discordance=0.12,
    calls=40,
    input_tokens_per_call=300.0,
    output_tokens_per_call=20.0,
    cost_per_call_usd=0.0003,
    latency_s=1.2,
)


def test_the_library_call_is_exported() -> None:
    assert assay.plan is plan


def test_a_rate_plan_is_the_width_search_at_the_interval_setting() -> None:
    setting = IntervalSetting(0.9, "wilson")
    made = plan("rate", width=0.05, interval=setting)
    (answer,) = made.answers
    assert answer.cases == cases_for_half_width(0.05, interval=setting)
    assert answer.achieved == rate_half_width(answer.cases, interval=setting) <= 0.05
    assert "Wilson" in answer.method and "every outcome" in answer.method
    assert made.cases == answer.cases and made.forecast is None


def test_a_drop_adds_to_half_the_flips_each_way() -> None:
    made = plan("drop", drop=0.05, discordance=0.1)
    (answer,) = made.answers
    assert answer.cases == cases_for_drop(0.1, 0.05, alpha=0.05, power=0.8)
    assert answer.achieved == mcnemar_power(answer.cases, 0.1, 0.05, 0.05)
    assert "exact conditional McNemar" in answer.method
    assert made.assumptions == ["discordance 0.1 as given"]


def test_the_discordance_comes_from_the_pilot_then_the_rate() -> None:
    measured = plan("drop", drop=0.05, pilot=PILOT)
    assert "0.12 measured on run r-1" in measured.assumptions[0]
    by_rate = plan("drop", drop=0.05, baseline_rate=0.8)
    assert "2p(1 − p)" in by_rate.assumptions[0]
    assert by_rate.answers[0].cases == cases_for_drop(0.16 + 0.05, 0.16)
    unknown = plan("drop", drop=0.05)
    assert "0.5 assumed" in unknown.assumptions[0]


def test_non_inferiority_is_powered_for_compare_s_own_rule() -> None:
    made = plan("noninferiority", margin=0.1, discordance=0.2, difference=0.02, baseline_rate=0.6)
    (answer,) = made.answers
    assert "Newcombe" in answer.method and "assay compare" in answer.method
    assert answer.cases is not None and answer.achieved is not None
    cells = PairedCells.of(0.6, 0.1, 0.12)
    expected = noninferiority_power(answer.cases, cells, 0.1, 0.95)
    assert answer.achieved == pytest.approx(expected, abs=1e-12) and expected >= 0.8
    assert noninferiority_power(answer.cases - 1, cells, 0.1, 0.95) < 0.8


def test_detectable_answers_each_question_for_the_cases() -> None:
    made = plan("detectable", cases=300, discordance=0.1)
    rate, drop, margin = made.answers
    assert rate.effect == rate_half_width(300)
    assert drop.effect is not None and drop.achieved is not None and drop.achieved >= 0.8
    assert mcnemar_power(300, 0.05 + drop.effect - 2e-4, 0.05, 0.05) < 0.8
    assert margin.effect is not None and margin.achieved is not None
    assert margin.achieved >= 0.8 and "baseline rate" in " ".join(made.assumptions)


def test_trials_use_the_pilot_design_effect() -> None:
    made = plan("rate", width=0.05, trials=3, pilot=PILOT, concurrency=4)
    (answer,) = made.answers
    assert answer.trials == 3 and answer.cases is not None
    single = cases_for_half_width(0.05, 0.7)
    assert answer.effective_cases is not None and answer.effective_cases >= single
    assert answer.cases < single  # the trials are worth something: ρ = 0.6 < 1
    assert made.assumptions[0].startswith("expected rate 0.7: the task success of run r-1")
    assert "ρ = 0.6" in made.assumptions[1]
    fc = made.forecast
    assert fc is not None and fc.calls == answer.cases * 3
    assert fc.input_tokens == round(300 * fc.calls) and fc.cost_usd == pytest.approx(
        0.0003 * fc.calls
    )
    assert fc.wall_s == pytest.approx(fc.calls * 1.2 / 4)


def test_trials_without_a_measured_spread_count_each_case_once() -> None:
    made = plan("rate", width=0.1, trials=4)
    assert made.answers[0].cases == cases_for_half_width(0.1)
    assert "ρ = 1" in made.assumptions[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"question": "rate"}, "half-width"),
        ({"question": "noninferiority", "margin": 0.05, "trials": 2}, "baseline's rate"),
        ({"question": "drop", "drop": 0.5, "baseline_rate": 0.3}, "breaks more cases"),
        ({"question": "noninferiority"}, "margin"),
        ({"question": "detectable"}, "number of cases"),
        ({"question": "guess"}, "unknown question"),
        ({"question": "drop", "drop": 0.05, "power": 1.0}, "power"),
    ],
)
def test_bad_inputs_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan(**kwargs)  # type: ignore[arg-type]


def test_every_format_renders() -> None:
    made = plan("rate", width=0.1, trials=2, pilot=PILOT, concurrency=2)
    text = render(made, "text")
    assert text.startswith("assay plan · how many cases to estimate a rate")
    assert "forecast from run r-1" in text and "Clopper–Pearson" in text
    markdown = render(made, "markdown")
    assert markdown.startswith("## assay plan: ") and "| Question |" in markdown
    data = json.loads(render(made, "json"))
    assert data["schema_version"] == 1 and data["cases"] == made.cases
    assert data["forecast"]["calls"] == made.cases * 2
    with pytest.raises(ValueError, match="unknown format"):
        render(made, "html")


def test_a_drop_over_trials_is_planned_with_the_sign_test_over_cases() -> None:
    made = plan("drop", drop=0.1, trials=3, pilot=PILOT)
    (answer,) = made.answers
    icc = intraclass(1.6, 2)
    broken, fixed = trials_drop_table(0.7, icc, 3, 0.1)
    assert answer.trials == 3 and answer.cases == cases_for_drop(broken, fixed)
    assert answer.achieved == mcnemar_power(answer.cases, broken, fixed)
    assert "exact sign test over cases" in answer.method
    assert any("design effect 1.6 measured on run r-1" in a for a in made.assumptions)
    assert any("beta-binomial" in a for a in made.assumptions)
    assert made.forecast is not None and made.forecast.calls == answer.cases * 3


def test_a_drop_over_trials_needs_how_trials_agree_and_a_rate() -> None:
    with pytest.raises(ValueError, match="how the trials of one case agree"):
        plan("drop", drop=0.05, trials=2, baseline_rate=0.8)
    with pytest.raises(ValueError, match="needs the baseline's rate"):
        plan("drop", drop=0.05, trials=2, discordance=0.1)


def test_noninferiority_over_trials_needs_how_trials_agree_and_a_rate() -> None:
    with pytest.raises(ValueError, match="how the trials of one case agree"):
        plan("noninferiority", margin=0.05, trials=2, baseline_rate=0.8)
    with pytest.raises(ValueError, match="needs the baseline's rate"):
        plan("noninferiority", margin=0.05, trials=2, discordance=0.1)
    with pytest.raises(ValueError, match="already beyond the margin"):
        plan("noninferiority", margin=0.05, trials=2, pilot=PILOT, difference=-0.06)
    with pytest.raises(ValueError, match="replications"):
        plan("noninferiority", margin=0.05, trials=2, pilot=PILOT, replications=10)


def test_noninferiority_over_trials_is_the_simulated_power_of_compare_s_rule() -> None:
    kwargs = {"margin": 0.1, "trials": 3, "pilot": PILOT, "replications": 400, "seed": 7}
    made = plan("noninferiority", **kwargs)  # type: ignore[arg-type]
    (answer,) = made.answers
    assert answer.trials == 3 and answer.cases is not None
    assert answer.achieved is not None and answer.achieved >= 0.8
    assert answer.achieved_se is not None
    assert answer.achieved_se == pytest.approx(
        (answer.achieved * (1 - answer.achieved) / 400) ** 0.5
    )
    assert "simulated power of assay compare's rule" in answer.method
    assert "400 replications, seed 7" in answer.method
    assert "Rao & Scott (1992)" in answer.reference
    # seeded: the same inputs give the same plan, another seed may not
    again = plan("noninferiority", **kwargs)  # type: ignore[arg-type]
    assert again.answers[0] == answer
    assert made.forecast is not None and made.forecast.calls == answer.cases * 3
    text = render(made, "text")
    assert f"{answer.cases:,} cases × 3 trials" in text and "(Monte Carlo s.e.)" in text


def test_one_trial_noninferiority_keeps_an_exact_power() -> None:
    (answer,) = plan("noninferiority", margin=0.1, discordance=0.2, trials=1).answers
    assert answer.achieved_se is None and "exact power" in answer.method
