"""Agreement between two raters on an ordinal scale: the confusion matrix and Cohen's
weighted kappa with its large-sample interval."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Literal

from pydantic import BaseModel, ConfigDict

KappaWeights = Literal["linear", "quadratic"]


class Kappa(BaseModel):
    """Cohen's weighted kappa of ``n`` paired ratings and its two-sided interval.

    ``value`` is None ("n/a") when it is undefined: no pairs, or both raters always gave
    the same single score (chance agreement is 1). The interval uses the large-sample
    variance of Fleiss, Cohen and Everitt (1969), clipped to [-1, 1]; it is None with
    fewer than two pairs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    value: float | None
    interval: tuple[float, float] | None
    standard_error: float | None
    n: int
    weights: KappaWeights
    confidence: float = 0.95
    observed_agreement: float | None = None
    expected_agreement: float | None = None


def confusion_matrix(pairs: Sequence[tuple[int, int]], levels: int = 3) -> list[list[int]]:
    """Counts of ``(row rater, column rater)`` scores: ``matrix[row][column]``, scores in
    ``0 .. levels - 1``."""
    matrix = [[0] * levels for _ in range(levels)]
    for a, b in pairs:
        if not (0 <= a < levels and 0 <= b < levels):
            raise ValueError(f"score pair ({a}, {b}) is outside 0..{levels - 1}")
        matrix[a][b] += 1
    return matrix


def agreement_weights(levels: int, weights: KappaWeights) -> list[list[float]]:
    """Agreement weights: 1 on the diagonal, falling linearly or quadratically to 0."""
    span = levels - 1
    power = 1 if weights == "linear" else 2
    return [[1 - (abs(i - j) / span) ** power for j in range(levels)] for i in range(levels)]


def weighted_kappa(
    matrix: Sequence[Sequence[int]],
    weights: KappaWeights = "linear",
    confidence: float = 0.95,
) -> Kappa:
    """Cohen's weighted kappa of a square confusion matrix, with its interval."""
    levels = len(matrix)
    n = sum(sum(row) for row in matrix)
    if n == 0:
        return Kappa(value=None, interval=None, standard_error=None, n=0, weights=weights)
    w = agreement_weights(levels, weights)
    p = [[matrix[i][j] / n for j in range(levels)] for i in range(levels)]
    rows = [sum(p[i]) for i in range(levels)]
    cols = [sum(p[i][j] for i in range(levels)) for j in range(levels)]
    observed = sum(w[i][j] * p[i][j] for i in range(levels) for j in range(levels))
    expected = sum(w[i][j] * rows[i] * cols[j] for i in range(levels) for j in range(levels))
    if math.isclose(expected, 1.0):
        return Kappa(
            value=None,
            interval=None,
            standard_error=None,
            n=n,
            weights=weights,
            confidence=confidence,
            observed_agreement=observed,
            expected_agreement=expected,
        )
    kappa = (observed - expected) / (1 - expected)
    row_w = [sum(cols[j] * w[i][j] for j in range(levels)) for i in range(levels)]
    col_w = [sum(rows[i] * w[i][j] for i in range(levels)) for j in range(levels)]
    spread = sum(
        p[i][j] * (w[i][j] - (row_w[i] + col_w[j]) * (1 - kappa)) ** 2
        for i in range(levels)
        for j in range(levels)
    )
    variance = (spread - (kappa - expected * (1 - kappa)) ** 2) / (n * (1 - expected) ** 2)
    se = math.sqrt(max(variance, 0.0))
    found: tuple[float, float] | None = None
    if n >= 2:
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        found = (max(-1.0, kappa - z * se), min(1.0, kappa + z * se))
    return Kappa(
        value=kappa,
        interval=found,
        standard_error=se,
        n=n,
        weights=weights,
        confidence=confidence,
        observed_agreement=observed,
        expected_agreement=expected,
    )
