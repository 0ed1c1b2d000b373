"""The judge calibration a suite requires, as gate results beside its rules' (one per bound
of ``grader.calibration``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.gates._rules import GateResult, Rule
from assay.metrics import Rate
from assay.report import CalibrationReport

if TYPE_CHECKING:
    from assay.grading.judge import CalibrationBounds

CALIBRATION_RULE = "judge_calibration.false_accepts.high"
FALSE_REJECT_RULE = "judge_calibration.false_rejects.high"
KAPPA_RULE = "judge_calibration.kappa.low"


def calibration_gate_results(
    report: CalibrationReport | None, problem: str | None, bounds: CalibrationBounds
) -> list[GateResult]:
    """The requirement of a judge calibration as gate results beside the rules', one per
    bound (false accepts, then false rejects and kappa when ``bounds`` set them). When
    ``problem`` is not None (no usable report, or one for another judge) every one fails
    with it."""
    checks: list[tuple[str, str, float, float | None, str]] = []
    if report is not None:
        fa = report.false_accepts
        checks.append(_rate_check(CALIBRATION_RULE, bounds.max_false_accept_upper, fa, "accept"))
        if bounds.max_false_reject_upper is not None:
            fr = report.false_rejects
            checks.append(
                _rate_check(FALSE_REJECT_RULE, bounds.max_false_reject_upper, fr, "reject")
            )
    else:
        checks.append((CALIBRATION_RULE, "<=", bounds.max_false_accept_upper, None, ""))
        if bounds.max_false_reject_upper is not None:
            checks.append((FALSE_REJECT_RULE, "<=", bounds.max_false_reject_upper, None, ""))
    if bounds.min_kappa_lower is not None:
        checks.append(_kappa_check(report, bounds.min_kappa_lower))
    graders = ", ".join(report.graders) if report is not None else ""
    results = []
    for path, op, threshold, actual, said in checks:
        rule = Rule(text=f"{path}{op}{threshold:g}", path=path, op=op, threshold=threshold)
        margin = None
        if actual is not None:
            margin = threshold - actual if op == "<=" else actual - threshold
        if problem is not None:
            passed, message = False, f"judge calibration: {problem}"
        elif margin is None or margin < 0:
            passed, message = False, f"judge calibration: {said}"
        else:
            passed, message = True, f"judge calibration of {graders}: {said}"
        results.append(
            GateResult(rule=rule, passed=passed, actual=actual, margin=margin, message=message)
        )
    return results


def _rate_check(
    path: str, maximum: float, found: Rate, kind: str
) -> tuple[str, str, float, float | None, str]:
    who = "human-fail" if kind == "accept" else "human-pass"
    if found.ci is None:
        said = f"the calibration report has no judged {who} cases: false {kind}s are n/a"
        return path, "<=", maximum, None, said
    upper = found.ci[1]
    figure = f"false {kind}s {found.numerator}/{found.denominator}"
    if upper > maximum:
        said = f"{figure}: upper bound {upper:.1%} is above the maximum {maximum:.1%}"
    else:
        said = f"{figure}, upper bound {upper:.1%} <= {maximum:.1%}"
    return path, "<=", maximum, upper, said


def _kappa_check(
    report: CalibrationReport | None, minimum: float
) -> tuple[str, str, float, float | None, str]:
    kappa = report.kappa if report is not None else None
    if kappa is None or kappa.value is None or kappa.interval is None:
        said = "the calibration report's weighted kappa has no interval (n/a)"
        return KAPPA_RULE, ">=", minimum, None, said
    lower = kappa.interval[0]
    figure = f"weighted kappa {kappa.value:.3f}"
    if lower < minimum:
        said = f"{figure}: lower bound {lower:.3f} is below the minimum {minimum:g}"
    else:
        said = f"{figure}, lower bound {lower:.3f} >= {minimum:g}"
    return KAPPA_RULE, ">=", minimum, lower, said
