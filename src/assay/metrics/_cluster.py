"""Intervals for rates over repeated trials, clustered by case.

Trials of one case are correlated evidence about one task, so K trials of N cases are not
K·N independent observations. The interval here is the effective-sample-size interval of
Korn & Graubard (1998), "Confidence intervals for proportions with small expected number
of positive counts estimated from survey data", Survey Methodology 24(2):193–201, with
their degrees-of-freedom adjustment:

1. p̂ = Σ yᵢ / Σ mᵢ over the N clusters (cases) i with mᵢ units (trials, answers) and yᵢ
   successes (a ratio estimator; yᵢ may be fractional, e.g. a pass@k estimate);
2. v̂ = N/(N − 1) · Σ (yᵢ − p̂·mᵢ)² / (Σ mᵢ)², the cluster-robust (sandwich) variance of
   p̂ that treats cases, not trials, as independent, with the usual small-sample factor
   N/(N − 1) (Kish 1965, "Survey Sampling", §6.4; the with-replacement variance of
   Lumley's `survey` package);
3. n* = p̂(1 − p̂) / v̂, the effective sample size (Kish's n / design effect), never above
   the number of units n (Korn & Graubard truncate the design effect at 1) and, after
   step 4, never below the number of cases N (a case's share of successes lies in [0, 1],
   so its variance is at most that of one 0/1 draw: N cases carry at least the
   information of N independent draws);
4. the degrees-of-freedom adjustment n*_df = n* · (t_{n−1} / t_{N−1})², t_d the two-sided
   quantile of Student's t at the confidence level: a variance estimated from N cases is
   itself uncertain, and with few cases the interval widens accordingly;
5. the chosen binomial interval (Clopper–Pearson by default, or Wilson) evaluated at
   x* = p̂·n*_df successes out of n*_df (the beta quantiles accept non-integer counts).

The variance has N − 1 degrees of freedom when every case contributes alike, and fewer
when a few cases carry the spread (rare passes concentrated in one case): the t quantile is
taken at Satterthwaite's (1946) effective degrees of freedom of the sum of squares,
(Σ rᵢ²)² / Σ rᵢ⁴ · (N − 1)/N with rᵢ = yᵢ − p̂·mᵢ, never below 1. Without it a single case
with one pass among many failing cases would give a variance near 0 and an interval as
narrow as if the trials were independent.

When every case passed all or none of its units (equal sizes), each case is one 0/1
observation and n* is the number of cases: the ordinary interval over cases. When every
case has the same outcome (p̂ is 0 or 1) the data say nothing about the correlation, and
n* is the number of cases: a valid choice, since a case whose trials all fail is at least
as likely as a single failing draw. With one unit per case, n* is the
number of cases and the interval is the ordinary one. n*_df never exceeds n, so the
interval is never narrower than the naive one over the n units.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import mul
from typing import TYPE_CHECKING, Any, TypeAlias

from assay._fast.special_functions import special
from assay.metrics._group import per_case
from assay.metrics._intervals import IntervalMethod, beta_limits, score_limits
from assay.metrics._rate import Rate
from assay.metrics._setting import DEFAULT_INTERVAL, IntervalSetting

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Each case's count: a list, or a numpy array of integers (the counts of a million cases).
Counted: TypeAlias = "Sequence[int] | NDArray[Any]"


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


def degrees_of_freedom(squares: Sequence[float]) -> float:
    """The degrees of freedom of a cluster-robust variance built from the clusters' squared
    residuals: N − 1 when every cluster contributes alike, down to 1 when one dominates
    (Satterthwaite 1946: (Σ rᵢ²)² / Σ rᵢ⁴, scaled by (N − 1)/N); N − 1 when every residual
    is 0."""
    n = len(squares)
    total = sum(squares)
    fourth: float = sum(map(mul, squares, squares))
    if n < 2:
        return 1.0
    if total <= 0 or fourth <= 0:
        return n - 1.0  # every case alike: no case dominates the (zero) spread
    return max(1.0, min(n - 1.0, total * total / fourth * (n - 1) / n))


def df_factor(units: float, df: float, confidence: float) -> float:
    """Korn & Graubard's (t_{n−1} / t_df)² for n units and a variance on df degrees of
    freedom: at most 1."""
    stdtrit = special().stdtrit

    q = 1 - (1 - confidence) / 2
    top = float(stdtrit(max(units - 1, df), q))
    bottom = float(stdtrit(df, q))
    return min(1.0, (top / bottom) ** 2)


def clustered_rate(
    successes: Sequence[float] | NDArray[Any],
    sizes: Sequence[float] | NDArray[Any],
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    max_effective: float | None = None,
) -> ClusteredEstimate | None:
    """The rate Σ successes / Σ sizes with its interval clustered by case; None when empty.

    ``successes[i]`` and ``sizes[i]`` belong to case i (e.g. passing trials and trials).
    Clusters of size 0 are ignored. The effective sample size never exceeds
    ``max_effective`` (default: Σ sizes), e.g. the number of trials behind per-case scores.
    """
    import numpy as np  # a command of one trial per case never loads it

    if len(successes) != len(sizes):
        raise ValueError("successes and sizes must have one entry per case")
    given_ys, given_ms = np.asarray(successes), np.asarray(sizes)
    if len(given_ms) and given_ms.min() <= 0:
        kept = given_ms > 0
        given_ys, given_ms = given_ys[kept], given_ms[kept]
    ys, ms = given_ys.astype(np.float64), given_ms.astype(np.float64)
    if ((ys < 0) | (ys > ms)).any():
        raise ValueError("each case needs 0 <= successes <= size")
    if not len(ys):
        return None
    units = _sum(given_ms)
    p = _sum(given_ys) / units
    clusters = len(ys)
    binomial = p * (1 - p)
    cap = float(units) if max_effective is None else max(float(units), max_effective)
    if ms.min() == ms.max() and ((ys == 0) | (ys == ms)).all():
        # Every case passed all or none of its units: one 0/1 observation per case, and
        # the ordinary interval over the cases is exact.
        effective = float(clusters)
    elif binomial <= 0:
        effective = float(clusters)
    elif clusters < 2:
        effective = 1.0  # no spread between cases can be estimated from one case
    else:
        # squared by Python's ``**`` (the C library's pow): numpy's square may differ in
        # the last bit
        squares = list(map(pow, (ys - p * ms).tolist(), repeat(2)))
        spread = sum(squares) / units**2
        variance = spread * clusters / (clusters - 1)
        effective = cap if variance <= 0 else min(cap, binomial / variance)
        effective = effective * df_factor(cap, degrees_of_freedom(squares), interval.confidence)
        # Never fewer than one observation per case: a case's share yᵢ/mᵢ lies in [0, 1],
        # so its variance is at most that of a single 0/1 draw.
        effective = min(cap, max(float(clusters), effective))
    ci = effective_interval(p * effective, effective, interval.confidence, interval.method)
    return ClusteredEstimate(value=p, ci=ci, clusters=clusters, units=cap, effective_n=effective)


def case_design_effect(
    successes: Sequence[float] | NDArray[Any],
    sizes: Sequence[float] | NDArray[Any],
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> float:
    """The design effect of the clustered interval of Σ successes / Σ sizes (each case's
    units over its effective number, ``ClusteredEstimate.design_effect``): 1 with one unit
    per case or no case."""
    est = clustered_rate(successes, sizes, interval=interval)
    return 1.0 if est is None else est.design_effect


def _sum(values: Any) -> Any:
    """The sum of a numpy array as Python's ``sum`` of its values gives it: whole numbers
    exactly (an int), other numbers added one by one in order (the same float to the last
    bit)."""
    if values.dtype.kind in "biu":
        return int(values.sum())
    return sum(values.tolist())


def clustered_by_case(r: Rate, units: Iterable[tuple[str, bool]]) -> Rate:
    """``r`` with its interval clustered by case: ``units`` gives each case-trial in the
    denominator as (case id, counted in the numerator); trials of one case are one unit.

    With one unit per case the interval is unchanged (the ordinary one).
    """
    hits, sizes = per_case(units)
    return clustered_counts(r, hits, sizes)


def clustered_counts(r: Rate, hits: Counted, sizes: Counted) -> Rate:
    """``r`` with its interval clustered by case from each case's count in the numerator
    (``hits``) and its units in the denominator (``sizes``, every one at least 1; lists or
    numpy arrays), cases in the order they first appear; unchanged with one unit per
    case."""
    if isinstance(sizes, Sequence):
        if all(n == 1 for n in sizes):
            return r
    elif (sizes == 1).all():
        return r
    est = clustered_rate(hits, sizes, interval=IntervalSetting(r.confidence, r.method))
    return r if est is None else r.model_copy(update={"ci": est.ci})
