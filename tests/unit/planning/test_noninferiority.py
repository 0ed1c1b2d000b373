"""The exact power of compare's non-inferiority rule at one trial per case: checked against
a naive enumeration of every paired table through compare's own verdict, and against a
Monte Carlo of ``compare_runs`` on synthetic runs."""

from __future__ import annotations

import math
import random

import pytest
from tests.unit.compare.helpers import case, side

from assay.compare import Delta, compare_runs, non_inferiority
from assay.metrics import paired_delta_interval
from assay.planning._noninferiority import (
    STEADY,
    PairedCells,
    cases_for_noninferiority,
    noninferiority_power,
    normal_guess,
    worst_rate,
)


def _naive_power(n: int, cells: PairedCells, margin: float) -> float:
    """Every table (both, fixed, broken, neither) of n cases, its multinomial probability,
    decided by compare's ``non_inferiority`` on the paired interval."""
    total = 0.0
    for both in range(n + 1):
        for fixed in range(n + 1 - both):
            for broken in range(n + 1 - both - fixed):
                neither = n - both - fixed - broken
                ways = math.factorial(n) // (
                    math.factorial(both)
                    * math.factorial(fixed)
                    * math.factorial(broken)
                    * math.factorial(neither)
                )
                chance = (
                    ways
                    * cells.both**both
                    * cells.fixed**fixed
                    * cells.broken**broken
                    * cells.neither**neither
                )
                ci = paired_delta_interval(both, fixed, broken, neither, 0.95)
                delta = Delta(value=(fixed - broken) / n, ci=ci, method="Newcombe")
                total += chance * non_inferiority(delta, margin).passed
    return total


@pytest.mark.parametrize("n", [1, 7, 18])
@pytest.mark.parametrize(
    ("rate", "broken", "fixed", "margin"),
    [(0.7, 0.1, 0.1, 0.2), (0.5, 0.15, 0.05, 0.3), (0.9, 0.05, 0.0, 0.1), (0.5, 0.0, 0.0, 0.1)],
)
def test_the_power_is_every_table_decided_by_compare(
    n: int, rate: float, broken: float, fixed: float, margin: float
) -> None:
    cells = PairedCells.of(rate, broken, fixed)
    assert noninferiority_power(n, cells, margin, 0.95) == pytest.approx(
        _naive_power(n, cells, margin), abs=1e-9
    )


def test_the_power_is_what_compare_runs_decides_on_drawn_runs() -> None:
    n, margin, reps = 30, 0.15, 400
    cells = PairedCells.of(0.7, 0.08, 0.08)
    exact = noninferiority_power(n, cells, margin, 0.95)
    assert 0.3 < exact < 0.8  # a power that a wrong rule would miss
    rng = random.Random(20261207)
    kinds = [("passed", "passed"), ("failed", "passed"), ("passed", "failed"), ("failed", "failed")]
    weights = [cells.both, cells.fixed, cells.broken, cells.neither]
    cases = [case(f"c{i}") for i in range(n)]
    shown = 0
    for _ in range(reps):
        drawn = rng.choices(kinds, weights, k=n)
        base = side(cases, {f"c{i}": k[0] for i, k in enumerate(drawn)}, ref="base")
        cand = side(cases, {f"c{i}": k[1] for i, k in enumerate(drawn)}, ref="cand")
        compared = compare_runs(base, cand)
        shown += non_inferiority(compared.task_success_delta, margin).passed
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(shown / reps - exact) <= 4 * se


def test_a_pilot_whose_trials_agree_needs_the_cases_compare_s_rule_needs() -> None:
    cells = PairedCells.of(0.5, 0.0, 0.0)
    needed = cases_for_noninferiority(cells, 0.1, 0.95, 0.8, normal_guess(cells, 0.1, 0.95, 0.8))
    assert needed == 21
    assert noninferiority_power(21, cells, 0.1, 0.95) == pytest.approx(0.8108, abs=1e-4)


@pytest.mark.parametrize(("rate", "flips", "margin"), [(0.8, 0.1, 0.05), (0.5, 0.2, 0.1)])
def test_the_cases_are_the_first_of_a_steady_run_reaching_the_power(
    rate: float, flips: float, margin: float
) -> None:
    cells = PairedCells.of(rate, flips / 2, flips / 2)
    guess = normal_guess(cells, margin, 0.95, 0.8)
    needed = cases_for_noninferiority(cells, margin, 0.95, 0.8, guess)
    powers = [
        noninferiority_power(n, cells, margin, 0.95) for n in range(needed - 1, needed + STEADY)
    ]
    assert min(powers[1:]) >= 0.8
    steady_before = all(
        noninferiority_power(n, cells, margin, 0.95) >= 0.8
        for n in range(needed - 1, needed - 1 + STEADY)
    )
    assert not steady_before


def test_without_a_rate_the_least_powerful_rate_is_taken() -> None:
    rate = worst_rate(0.05, 0.05, 300, 0.05, 0.95)
    at = {
        r: noninferiority_power(300, PairedCells.of(r, 0.05, 0.05), 0.05, 0.95)
        for r in (0.1, 0.5, 0.9)
    }
    assert noninferiority_power(300, PairedCells.of(rate, 0.05, 0.05), 0.05, 0.95) <= min(
        at.values()
    )


def test_cells_that_do_not_fit_the_rate_are_refused() -> None:
    with pytest.raises(ValueError, match="no room"):
        PairedCells.of(0.95, 0.1, 0.1)
