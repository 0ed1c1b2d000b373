"""Non-inferiority: whether the candidate is not worse than the baseline by more than a
margin, read off the paired interval of the task-success difference."""

from __future__ import annotations

from typing import Any

from assay.compare._model import Delta, NonInferiority
from assay.report import rule_verdict


def _points(x: float) -> str:
    return f"{x * 100:+.1f}"


def shows_not_worse(low: Any, margin: float) -> Any:
    """Whether a paired interval whose lower limit is ``low`` shows the candidate not worse
    than the baseline by more than ``margin`` (a number, or numpy arrays limit by limit):
    the rule ``non_inferiority`` decides by, and plans are powered for."""
    return low > -margin


def non_inferiority(delta: Delta, margin: float) -> NonInferiority:
    """Whether ``delta`` (candidate minus baseline) shows the candidate not worse than the
    baseline by more than ``margin``: not worse when its interval lies wholly above
    ``-margin``, worse when wholly below, undecided otherwise; as the paired rule of a
    sequential run decides "not worse than a baseline", on the side of its threshold its
    interval lies."""
    by = f"by more than {margin * 100:.1f} points"
    if delta.ci is None:
        return NonInferiority(
            margin=margin,
            confidence=delta.confidence,
            ci=None,
            verdict=None,
            passed=False,
            summary=f"n/a: no paired cases show the candidate is not worse than the baseline {by}",
        )
    low, high = delta.ci
    side = "above" if shows_not_worse(low, margin) else ("below" if high < -margin else None)
    decided = rule_verdict(">=", side)
    interval = (
        f"the paired {delta.confidence * 100:g}% interval of the difference is "
        f"[{_points(low)}, {_points(high)}] points"
    )
    if decided == "pass":
        verdict, summary = "not worse", f"not worse than the baseline {by}: {interval}"
    elif decided == "fail":
        verdict = "worse"
        summary = f"worse than the baseline {by}: {interval}, wholly below {_points(-margin)}"
    else:
        verdict = "undecided"
        summary = f"may be worse than the baseline {by}: {interval}, reaching below " + (
            _points(-margin)
        )
    return NonInferiority(
        margin=margin,
        confidence=delta.confidence,
        ci=(low, high),
        verdict=verdict,
        passed=decided == "pass",
        summary=summary,
    )
