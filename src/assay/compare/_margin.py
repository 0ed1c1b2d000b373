"""Non-inferiority: whether the candidate is not worse than the baseline by more than a
margin, read off the paired interval of the task-success difference."""

from __future__ import annotations

import math

from assay.compare._model import Delta, NonInferiority
from assay.errors import AssayConfigError
from assay.report import rule_verdict


def check_margin(margin: float, label: str) -> float:
    """``margin`` when it is a difference of rates a margin can be (0 up to, not
    including, 1); otherwise ``AssayConfigError`` starting with ``label``."""
    if math.isnan(margin) or not 0 <= margin < 1:
        raise AssayConfigError(
            f"{label}: the margin {margin:g} is not a difference of rates a margin can be: "
            "it must be at least 0 and below 1 (0.02 is 2 points)"
        )
    return margin


def _points(x: float) -> str:
    return f"{x * 100:+.1f}"


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
    side = "above" if low > -margin else ("below" if high < -margin else None)
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
