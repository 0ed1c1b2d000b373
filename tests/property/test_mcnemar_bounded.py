"""The exact McNemar p-value of many discordant pairs, first bounded by sums of rounded
terms, is the correctly rounded value of the exact rational, as the exact sum gives it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.metrics import mcnemar_exact
from assay.metrics._paired import _BOUNDED_FROM, _binomial_sum, _bounded_p


def _exact(fixed: int, broken: int) -> float:
    n, low = fixed + broken, min(fixed, broken)
    total, common = _binomial_sum(n, low)
    numerator, denominator = total, common << (n - 1)
    return 1.0 if numerator >= denominator else numerator / denominator


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(_BOUNDED_FROM + 1, 30_000),
    where=st.floats(0.0, 1.0),
)
def test_bounded_p_values_are_the_exact_ones(n: int, where: float) -> None:
    # low across the whole tail: from no pair on the smaller side to just off the middle
    low = min(int(where * (n // 2 - 1)), (n - 3) // 2)
    bounded = _bounded_p(n, low)
    assert bounded is not None
    assert bounded == _exact(n - low, low)


@settings(max_examples=60, deadline=None)
@given(fixed=st.integers(900, 12_000), broken=st.integers(900, 12_000))
def test_mcnemar_over_many_pairs_is_the_exact_value(fixed: int, broken: int) -> None:
    p = mcnemar_exact(fixed, broken)
    if abs(fixed - broken) <= 1:
        assert p == 1.0
    elif p != 0.0:
        assert p == _exact(fixed, broken)


def test_a_large_comparison_s_test_is_the_exact_value() -> None:
    assert mcnemar_exact(60_000, 59_000) == _exact(60_000, 59_000)
    assert mcnemar_exact(19_417, 19_496) == _exact(19_417, 19_496)
