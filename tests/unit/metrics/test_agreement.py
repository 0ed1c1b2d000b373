"""Cohen's weighted kappa and its interval, against a hand computation and against values
computed independently (scikit-learn's cohen_kappa_score and statsmodels' cohens_kappa,
run once outside the test suite; the figures are written here)."""

from __future__ import annotations

import math

import pytest

from assay.metrics import agreement_weights, confusion_matrix, weighted_kappa

# human score (rows) x judge score (columns), n = 10
HAND = [[2, 1, 0], [0, 2, 1], [0, 0, 4]]


def test_hand_computed_linear_kappa() -> None:
    # weights: 1 on the diagonal, 1/2 one step off, 0 two steps off
    # observed = (2+2+4)/10 + 0.5 * (1+1)/10 = 0.9
    # rows (.3, .3, .4), columns (.2, .3, .5):
    # expected = .3*(.2+.15) + .3*(.1+.3+.25) + .4*(.15+.5) = .105 + .195 + .26 = .56
    # kappa = (.9 - .56) / (1 - .56) = 17/22
    k = weighted_kappa(HAND, "linear")
    assert k.observed_agreement == pytest.approx(0.9)
    assert k.expected_agreement == pytest.approx(0.56)
    assert k.value == pytest.approx(17 / 22)
    assert k.n == 10


def test_matches_independent_implementations() -> None:
    # statsmodels.stats.inter_rater.cohens_kappa(HAND, wt="linear"):
    #   kappa 0.7727272727272727, std_kappa 0.14503337549749082
    k = weighted_kappa(HAND, "linear")
    assert k.standard_error == pytest.approx(0.14503337549749082, rel=1e-9)
    z = 1.959963984540054
    assert k.interval == pytest.approx((0.7727272727272727 - z * k.standard_error, 1.0))
    # a 40-pair sample: sklearn cohen_kappa_score(a, b, weights=...) and statsmodels
    a = [0, 1, 2, 2, 1, 0, 0, 2, 1, 2] * 4
    b = [0, 1, 2, 1, 1, 0, 1, 2, 2, 2] * 4
    m = confusion_matrix(list(zip(a, b, strict=True)))
    linear = weighted_kappa(m, "linear")
    quadratic = weighted_kappa(m, "quadratic")
    assert linear.value == pytest.approx(0.6511627906976745, rel=1e-9)
    assert quadratic.value == pytest.approx(0.7619047619047619, rel=1e-9)


def test_perfect_agreement_and_undefined_kappa() -> None:
    assert weighted_kappa([[3, 0, 0], [0, 2, 0], [0, 0, 5]]).value == pytest.approx(1.0)
    single = weighted_kappa([[0, 0, 0], [0, 0, 0], [0, 0, 7]])
    assert single.value is None and single.interval is None
    empty = weighted_kappa([[0] * 3 for _ in range(3)])
    assert empty.value is None and empty.n == 0


def test_weights_and_confusion() -> None:
    assert agreement_weights(3, "linear") == [[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]
    assert agreement_weights(3, "quadratic")[0] == [1, 0.75, 0]
    assert confusion_matrix([(0, 2), (0, 2), (1, 1)]) == [[0, 0, 2], [0, 1, 0], [0, 0, 0]]
    with pytest.raises(ValueError, match="outside"):
        confusion_matrix([(3, 0)])


def test_interval_is_clipped_and_widens_with_confidence() -> None:
    k95 = weighted_kappa(HAND, "linear", 0.95)
    k80 = weighted_kappa(HAND, "linear", 0.80)
    assert k95.interval is not None and k80.interval is not None
    assert k95.interval[1] == 1.0
    assert k95.interval[0] < k80.interval[0]
    assert not math.isnan(k95.interval[0])
