"""A pass rate measured by an imperfect judge, corrected for the judge's measured errors.

The judge's sensitivity (it passes what people pass) and specificity (it fails what people
fail) are estimated from a labelled sample; the run's observed pass rate is corrected with
the Rogan–Gladen estimator (Rogan & Gladen 1978, "Estimating prevalence from the results
of a screening test", Am. J. Epidemiol. 107:71–76), and its interval is the one of Lang &
Reiczigel (2014, "Confidence limits for prevalence of disease adjusted for estimated
sensitivity and specificity", Prev. Vet. Med. 113:13–22), which carries the sampling error
of the run and of both labelled samples.

With several trials per case the run's case-trials are not independent: the run's share
of the variance is then the clustered one, its count of case-trials divided by the design
effect the clustered interval of the raw rate uses (Kish 1965, "Survey Sampling", §8.2;
the effective sample size of Korn & Graubard 1998), the labelled samples' shares as they
are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

# The least number of labelled human-pass and of human-fail cases a correction rests on:
# below it the estimated error rates are too coarse to correct anything.
MIN_LABELS_EACH = 10


@dataclass(frozen=True)
class Corrected:
    """A corrected rate: the point estimate and its interval at ``confidence``, or the
    reason no correction is made (``value`` and ``interval`` None)."""

    value: float | None
    interval: tuple[float, float] | None
    confidence: float
    refused: str | None = None
    sensitivity: float | None = None
    specificity: float | None = None


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def rogan_gladen(observed: float, sensitivity: float, specificity: float) -> float:
    """The true rate behind ``observed`` given the judge's sensitivity and specificity
    (clipped to 0–1); their sum must exceed 1.

    >>> round(rogan_gladen(0.72, 0.95, 0.80), 4)
    0.6933
    """
    youden = sensitivity + specificity - 1
    if youden <= 0:
        raise ValueError("sensitivity + specificity must exceed 1")
    return _clip((observed + specificity - 1) / youden)


def corrected_rate(
    passed: int,
    judged: int,
    human_pass: int,
    false_rejects: int,
    human_fail: int,
    false_accepts: int,
    confidence: float = 0.95,
    min_labels: int = MIN_LABELS_EACH,
    design_effect: float = 1.0,
) -> Corrected:
    """The pass rate ``passed / judged`` corrected for a judge that failed
    ``false_rejects`` of ``human_pass`` labelled human-pass cases and passed
    ``false_accepts`` of ``human_fail`` human-fail cases.

    The point estimate is Rogan–Gladen's; the interval is Lang & Reiczigel's (2014): the
    run's counts get z²/2 added successes and failures, each labelled sample one success
    and one failure, the delta-method variance of the adjusted estimate is shifted by their
    bias term, and the limits are clipped to 0–1. Refused (``refused`` says why) when
    either labelled sample has fewer than ``min_labels`` cases or the judge is no better
    than chance (sensitivity + specificity ≤ 1). ``design_effect`` (at least 1): the run's
    case-trials count as ``judged / design_effect`` independent ones in the interval.
    """
    if not 0 <= passed <= judged or not 0 <= false_rejects <= human_pass:
        raise ValueError("invalid counts")
    if not 0 <= false_accepts <= human_fail:
        raise ValueError("invalid counts")
    if judged == 0:
        return Corrected(None, None, confidence, refused="no case-trials with a verdict")
    small = [
        f"{n} labelled human-{kind} case{'' if n == 1 else 's'}"
        for n, kind in ((human_pass, "pass"), (human_fail, "fail"))
        if n < min_labels
    ]
    if small:
        return Corrected(
            None,
            None,
            confidence,
            refused=f"the calibration is too small: {' and '.join(small)} "
            f"(at least {min_labels} of each are needed)",
        )
    se = (human_pass - false_rejects) / human_pass
    sp = (human_fail - false_accepts) / human_fail
    if se + sp <= 1:
        return Corrected(
            None,
            None,
            confidence,
            refused=f"the judge is no better than chance: sensitivity {se:.1%} + specificity "
            f"{sp:.1%} <= 100%",
            sensitivity=se,
            specificity=sp,
        )
    value = rogan_gladen(passed / judged, se, sp)
    low, high = lang_reiczigel(
        passed, judged, human_pass - false_rejects, human_pass, human_fail - false_accepts,
        human_fail, confidence, design_effect,
    )  # fmt: skip
    return Corrected(value, (low, high), confidence, sensitivity=se, specificity=sp)


def lang_reiczigel(
    positives: int,
    n: int,
    true_positives: int,
    n_positive: int,
    true_negatives: int,
    n_negative: int,
    confidence: float = 0.95,
    design_effect: float = 1.0,
) -> tuple[float, float]:
    """Lang & Reiczigel's (2014) interval for the true rate behind ``positives / n`` when
    sensitivity is ``true_positives / n_positive`` and specificity ``true_negatives /
    n_negative``, both estimated from independent samples; the run's ``n`` observations
    count as ``n / design_effect`` independent ones (clustered, e.g. trials of one case)."""
    if not design_effect >= 1:
        raise ValueError(f"a design effect is at least 1, got {design_effect}")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    z2 = z * z
    effective = n / design_effect
    p = (positives / design_effect + z2 / 2) / (effective + z2)
    n_p = effective + z2
    se = (true_positives + 1) / (n_positive + 2)
    n_se = n_positive + 2
    sp = (true_negatives + 1) / (n_negative + 2)
    n_sp = n_negative + 2
    youden = se + sp - 1
    if youden <= 0:
        return 0.0, 1.0
    est = (p + sp - 1) / youden
    var_se = se * (1 - se) / n_se
    var_sp = sp * (1 - sp) / n_sp
    spread = math.sqrt(p * (1 - p) / n_p + est * est * var_se + (1 - est) ** 2 * var_sp)
    spread /= abs(youden)
    shift = 2 * z2 * (est * var_se - (1 - est) * var_sp)
    return _clip(est + shift - z * spread), _clip(est + shift + z * spread)
