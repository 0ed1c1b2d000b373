"""The syntax of a gate rule, shared by every gate (on a report, a comparison, a trend).

A rule is ``PATH OP NUMBER [allow_na]``. ``OP`` is one of ``>= > <= < == !=``; ``NUMBER``
may end in ``%``. A rate that is n/a (zero denominator) fails unless the rule ends in
``allow_na``; a NaN never passes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from assay.errors import AssayConfigError, did_you_mean

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: math.isclose(a, b, rel_tol=0.0, abs_tol=1e-12),
    "!=": lambda a, b: not math.isclose(a, b, rel_tol=0.0, abs_tol=1e-12),
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}
_RULE = re.compile(
    r"^\s*(?P<path>[^<>=!\s]+)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?P<num>[^\s]+?)(?P<pct>%)?"
    r"(?:\s+(?P<flag>\S+))?\s*$"
)
ALLOW_NA = "allow_na"
# Short names for the usage figures: ``cost_usd<=5``, ``latency_p95_s<=2``.
ALIASES = {
    "cost_usd": "usage.cost_usd",
    "input_tokens": "usage.input_tokens",
    "output_tokens": "usage.output_tokens",
    "latency_p50_s": "usage.latency.p50_s",
    "latency_p95_s": "usage.latency.p95_s",
    "latency_max_s": "usage.latency.max_s",
}


class Rule(BaseModel):
    """One parsed gate rule: ``path op threshold``, optionally letting an n/a value pass."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    text: str
    path: str
    op: str
    threshold: float
    allow_na: bool = False


class GateResult(BaseModel):
    """A rule applied to a report: whether it passed, the value seen and why."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    rule: Rule
    passed: bool
    actual: float | None
    margin: float | None
    message: str


@dataclass(frozen=True)
class RuleParts:
    """A rule as written: ``path op threshold [allow_na]``, the threshold already divided
    by 100 when it was written with ``%`` (``percent``)."""

    path: str
    op: str
    threshold: float
    allow_na: bool
    percent: bool


def split_rule(text: str, label: str = "gate rule") -> RuleParts:
    """The parts of ``text``: the one syntax of every gate (``assay gate``, a suite's
    ``gates:``, ``assay compare --gate``). ``label`` starts each error message."""
    match = _RULE.match(text)
    if match is None:
        raise AssayConfigError(
            f"{label} {text!r}: expected FIELD OP NUMBER, e.g. 'task_success>=0.8' "
            "(operators >= > <= < == !=; add 'allow_na' to let an n/a rate pass)"
        )
    flag = match["flag"]
    if flag is not None and flag != ALLOW_NA:
        raise AssayConfigError(
            f"{label} {text!r}: unknown option {flag!r}{did_you_mean(flag, [ALLOW_NA])}; "
            f"the only option is {ALLOW_NA}"
        )
    try:
        threshold = float(match["num"])
    except ValueError:
        raise AssayConfigError(f"{label} {text!r}: {match['num']!r} is not a number") from None
    if math.isnan(threshold):
        raise AssayConfigError(f"{label} {text!r}: the threshold must be a number, not NaN")
    if match["pct"]:
        threshold /= 100
    return RuleParts(
        path=ALIASES.get(match["path"], match["path"]),
        op=match["op"],
        threshold=threshold,
        allow_na=flag == ALLOW_NA,
        percent=bool(match["pct"]),
    )


def check_scale(text: str, parts: RuleParts, low: float = 0.0, label: str = "gate rule") -> None:
    """Refuse a threshold outside a rate's scale (``low`` to 1): ``task_success>=80`` means
    0.80 or 80%, never a figure no rate can reach."""
    if low <= parts.threshold <= 1:
        return
    written = text.strip()
    if not parts.percent and low * 100 <= parts.threshold <= 100:
        whole, _, decimals = f"{parts.threshold / 100:g}".partition(".")
        suggestion = f"{whole}.{decimals.ljust(2, '0')}"
        fixed = f"{parts.path}{parts.op}{suggestion}"
        hint = f"; did you mean {fixed!r} (or {parts.threshold:g}%)?"
    else:
        hint = ""
    raise AssayConfigError(
        f"{label} {written!r}: {parts.path} is a rate from {low:g} to 1, and "
        f"{parts.threshold:g} is off its scale{hint}"
    )


def gates_passed(results: Sequence[GateResult]) -> bool:
    """True when every rule passed (an empty rule list passes)."""
    return all(r.passed for r in results)
