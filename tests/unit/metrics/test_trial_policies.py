"""pass@k, pass^k and the trial policies, against brute force and the reference file."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest

from assay.metrics import TrialPolicy, pass_at_k, pass_hat_k, require_declared_selection

REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "stats_reference_values.json").read_text()
)["pass_at_k"]


def _brute_force(n: int, c: int, k: int, all_pass: bool) -> Fraction:
    """Enumerate every k-subset of n trials (c of them passing) and average the outcome."""
    trials = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    hits = sum(
        (all if all_pass else any)(trials[i] for i in subset)  # type: ignore[operator]
        for subset in subsets
    )
    return Fraction(hits, len(subsets))


SMALL = [(n, c, k) for n in range(1, 8) for c in range(n + 1) for k in range(1, n + 1)]


@pytest.mark.parametrize(("n", "c", "k"), SMALL)
def test_pass_at_k_equals_brute_force(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(float(_brute_force(n, c, k, False)), abs=1e-12)


@pytest.mark.parametrize(("n", "c", "k"), SMALL)
def test_pass_hat_k_equals_brute_force(n: int, c: int, k: int) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(float(_brute_force(n, c, k, True)), abs=1e-12)


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: f"{c['n']}-{c['c']}-{c['k']}")
def test_pass_at_k_matches_reference(case: dict[str, Any]) -> None:
    n, c, k = case["n"], case["c"], case["k"]
    assert pass_at_k(n, c, k) == pytest.approx(float(Fraction(case["exact_fraction"])), abs=1e-12)
    # The paper's closed form, 1 - C(n-c, k) / C(n, k), in exact arithmetic.
    assert pass_at_k(n, c, k) == pytest.approx(
        float(1 - Fraction(comb(n - c, k), comb(n, k))), abs=1e-12
    )


def test_human_eval_published_example() -> None:
    published = REFERENCE["published"][0]
    assert pass_at_k(published["n"], published["c"], published["k"]) == pytest.approx(0.5)


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (3, 4, 1), (3, 1, 0), (3, 1, 4)])
def test_invalid_arguments_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


@pytest.mark.parametrize(
    ("text", "name", "k"),
    [
        ("mean", "mean", None),
        ("majority", "majority", None),
        ("pass@1", "pass@k", 1),
        ("pass^3", "pass^k", 3),
        ("pass@k", "pass@k", 5),
        ("PASS^K", "pass^k", 5),
    ],
)
def test_policies_parse(text: str, name: str, k: int | None) -> None:
    policy = TrialPolicy.parse(text, trials=5)
    assert (policy.name, policy.k) == (name, k)


@pytest.mark.parametrize("text", ["best", "pass@", "pass@0", "pass#2", "median"])
def test_unknown_policies_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        TrialPolicy.parse(text, trials=5)


def test_k_above_the_trial_count_is_refused() -> None:
    with pytest.raises(ValueError, match="needs at least 6 trials"):
        TrialPolicy.parse("pass@6").resolved(5)


@pytest.mark.parametrize(
    ("policy", "passed", "score"),
    [
        ("mean", 3, 0.6),
        ("majority", 3, 1.0),
        ("majority", 2, 0.0),
        ("pass^5", 5, 1.0),
        ("pass^5", 4, 0.0),
        ("pass@5", 1, 1.0),
        ("pass@5", 0, 0.0),
        ("pass@1", 2, 0.4),
    ],
)
def test_case_scores(policy: str, passed: int, score: float) -> None:
    assert TrialPolicy.parse(policy).case_score(5, passed) == pytest.approx(score)


def test_labels_name_the_policy_and_trials() -> None:
    assert TrialPolicy.parse("pass@1").label(5) == "pass@1 of 5 trials"
    assert TrialPolicy.parse("pass^k", 4).label(4) == "pass^4 of 4 trials"
    assert TrialPolicy.parse("majority").label(3) == "majority of 3 trials"
    assert TrialPolicy.parse("pass@3").label(5) == (
        "pass@3 of 5 trials, best of 3 as the product selects"
    )


@pytest.mark.parametrize(
    ("text", "selects"),
    [("pass@1", False), ("pass@2", True), ("pass@k", True), ("pass^3", False), ("mean", False)],
)
def test_only_pass_at_k_above_one_selects_the_best(text: str, selects: bool) -> None:
    policy = TrialPolicy.parse(text)
    assert policy.selects_best is selects
    require_declared_selection(policy, True, "the flag")
    if selects:
        with pytest.raises(ValueError, match="declare it \\(the flag\\)"):
            require_declared_selection(policy, False, "the flag")
    else:
        require_declared_selection(policy, False, "the flag")
