"""Intervals for rates over repeated trials, clustered by case.

Trials of one case are correlated evidence about one task, so K trials of N cases are not
K·N independent observations. The interval here is the effective-sample-size interval of
Korn & Graubard (1998), "Confidence intervals for proportions with small expected number
of positive counts estimated from survey data", Survey Methodology 24(2):193–201:

1. p̂ = Σ yᵢ / Σ mᵢ over clusters (cases) i with mᵢ units (trials, answers) and yᵢ
   successes (a ratio estimator; yᵢ may be fractional, e.g. a pass@k estimate);
2. v̂ = Σ (yᵢ − p̂·mᵢ)² / (Σ mᵢ)², the cluster-robust (sandwich) variance of p̂ that treats
   cases, not trials, as independent (Kish 1965, "Survey Sampling", §6.4);
3. n* = p̂(1 − p̂) / v̂, the effective sample size (Kish's n / design effect), never above
   the number of units (Korn & Graubard truncate the design effect at 1);
4. the chosen binomial interval (Clopper–Pearson by default, or Wilson) evaluated at
   x* = p̂·n* successes out of n* (the beta quantiles accept non-integer counts).

When every case has the same outcome (v̂ = 0 and p̂ is 0 or 1) the data say nothing about
the correlation, and n* is the number of cases: the conservative choice. With one unit per
case, n* is the number of cases and the interval is the ordinary one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assay.metrics._intervals import IntervalMethod, beta_limits, score_limits
from assay.metrics._rate import Rate


@dataclass(frozen=True)
class ClusteredEstimate:
    """A clustered rate: estimate, interval, and how much the clustering cost."""

    value: float
    ci: tuple[float, float]
    clusters: int
    units: float
    effective_n: float

    @property
    def design_effect(self) -> float:
        """units / effective n: 1 when trials behave as independent, up to K when identical."""
        return self.units / self.effective_n


def effective_interval(
    x: float, n: float, confidence: float = 0.95, method: IntervalMethod = "clopper-pearson"
) -> tuple[float, float]:
    """The binomial interval by ``method`` at a possibly non-integer x successes of n."""
    if not (n > 0 and 0 <= x <= n):
        raise ValueError(f"need n > 0 and 0 <= x <= n, got x={x}, n={n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if method == "wilson":
        return score_limits(x, n, confidence)
    return beta_limits(x, n, confidence)


def clustered_rate(
    successes: Sequence[float],
    sizes: Sequence[float],
    *,
    confidence: float = 0.95,
    method: IntervalMethod = "clopper-pearson",
    max_effective: float | None = None,
) -> ClusteredEstimate | None:
    """The rate Σ successes / Σ sizes with its interval clustered by case; None when empty.

    ``successes[i]`` and ``sizes[i]`` belong to case i (e.g. passing trials and trials).
    Clusters of size 0 are ignored. The effective sample size never exceeds
    ``max_effective`` (default: Σ sizes), e.g. the number of trials behind per-case scores.
    """
    if len(successes) != len(sizes):
        raise ValueError("successes and sizes must have one entry per case")
    pairs = [(y, m) for y, m in zip(successes, sizes, strict=True) if m > 0]
    if any(y < 0 or y > m for y, m in pairs):
        raise ValueError("each case needs 0 <= successes <= size")
    units = sum(m for _, m in pairs)
    if not pairs:
        return None
    p = sum(y for y, _ in pairs) / units
    variance = sum((y - p * m) ** 2 for y, m in pairs) / units**2
    binomial = p * (1 - p)
    cap = float(units) if max_effective is None else max(float(units), max_effective)
    if variance <= 0 or binomial <= 0:
        effective = cap if binomial > 0 else float(len(pairs))
    else:
        effective = min(cap, binomial / variance)
    ci = effective_interval(p * effective, effective, confidence, method)
    return ClusteredEstimate(value=p, ci=ci, clusters=len(pairs), units=cap, effective_n=effective)


def clustered_by_case(r: Rate, units: Iterable[tuple[str, bool]]) -> Rate:
    """``r`` with its interval clustered by case: ``units`` gives each case-trial in the
    denominator as (case id, counted in the numerator); trials of one case are one unit.

    With one unit per case the interval is unchanged (the ordinary one).
    """
    per_case: dict[str, list[int]] = {}
    for case_id, hit in units:
        per_case.setdefault(case_id, []).append(int(hit))
    if all(len(v) == 1 for v in per_case.values()):
        return r
    est = clustered_rate(
        [sum(v) for v in per_case.values()],
        [len(v) for v in per_case.values()],
        confidence=r.confidence,
        method=r.method,
    )
    return r if est is None else r.model_copy(update={"ci95": est.ci})
