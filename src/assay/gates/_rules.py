"""The syntax of a gate rule, shared by every gate (on a report, a comparison, a trend).

A rule is ``PATH OP NUMBER [allow_na]``. ``OP`` is one of ``>= > <= < == !=``; ``NUMBER``
may end in ``%``. A rate that is n/a (zero denominator) fails unless the rule ends in
``allow_na``; a NaN never passes.

A rule may instead be a check called with its margin, ``NAME(NUMBER) [allow_na]``: the one
such check is ``not_worse_than_baseline(0.02)`` (the candidate is not worse than the
baseline by more than 2 points), which needs a baseline to compare with.
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
_CALL = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\(\s*(?P<num>[^\s()]*?)(?P<pct>%)?\s*\)"
    r"(?:\s+(?P<flag>\S+))?\s*$"
)
ALLOW_NA = "allow_na"
NOT_WORSE = "not_worse_than_baseline"
"""The check that the candidate is not worse than the baseline by more than its margin."""
BASELINE = "baseline"
"""The tag of the run ``not_worse_than_baseline(MARGIN)`` compares with."""
CALLS = (NOT_WORSE,)
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
    call: bool = False


def split_rule(text: str, label: str = "gate rule") -> RuleParts:
    """The parts of ``text``: the one syntax of every gate (``assay gate``, a suite's
    ``gates:``, ``assay compare --gate``), ``FIELD OP NUMBER`` or ``CHECK(MARGIN)`` (then
    ``call`` is set). ``label`` starts each error message."""
    call = _CALL.match(text)
    if call is not None:
        return _called(text, call, label)
    match = _RULE.match(text)
    if match is None:
        raise AssayConfigError(
            f"{label} {text!r}: expected FIELD OP NUMBER, e.g. 'task_success>=0.8' "
            "(operators >= > <= < == !=; add 'allow_na' to let an n/a rate pass)"
        )
    flag = match["flag"]
    _check_flag(text, flag, label)
    threshold = _number(text, match["num"], label)
    if match["pct"]:
        threshold /= 100
    return RuleParts(
        path=ALIASES.get(match["path"], match["path"]),
        op=match["op"],
        threshold=threshold,
        allow_na=flag == ALLOW_NA,
        percent=bool(match["pct"]),
    )


def _check_flag(text: str, flag: str | None, label: str) -> None:
    if flag is not None and flag != ALLOW_NA:
        raise AssayConfigError(
            f"{label} {text!r}: unknown option {flag!r}{did_you_mean(flag, [ALLOW_NA])}; "
            f"the only option is {ALLOW_NA}"
        )


def _number(text: str, written: str, label: str) -> float:
    try:
        number = float(written)
    except ValueError:
        raise AssayConfigError(f"{label} {text!r}: {written!r} is not a number") from None
    if math.isnan(number):
        raise AssayConfigError(f"{label} {text!r}: the threshold must be a number, not NaN")
    return number


def _called(text: str, call: re.Match[str], label: str) -> RuleParts:
    """The parts of a check called with its margin: ``path`` names the check, ``op`` is
    ``>=`` and ``threshold`` is the margin (a difference of rates, 0 up to 1)."""
    name = call["name"]
    if name not in CALLS:
        raise AssayConfigError(
            f"{label} {text!r}: unknown check {name!r}{did_you_mean(name, list(CALLS))}; "
            f"the checks called with a margin: {', '.join(f'{c}(MARGIN)' for c in CALLS)}"
        )
    _check_flag(text, call["flag"], label)
    margin = _number(text, call["num"], label) / (100 if call["pct"] else 1)
    check_margin(margin, f"{label} {text.strip()!r}")
    return RuleParts(
        path=name, op=">=", threshold=margin, allow_na=call["flag"] == ALLOW_NA,
        percent=bool(call["pct"]), call=True,
    )  # fmt: skip


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


def check_margin(margin: float, label: str) -> float:
    """``margin`` when it is a difference of rates a margin can be (0 up to, not
    including, 1); otherwise ``AssayConfigError`` starting with ``label``."""
    if math.isnan(margin) or not 0 <= margin < 1:
        raise AssayConfigError(
            f"{label}: the margin {margin:g} is not a difference of rates a margin can be: "
            "it must be at least 0 and below 1 (0.02 is 2 points)"
        )
    return margin


def gates_passed(results: Sequence[GateResult]) -> bool:
    """True when every rule passed (an empty rule list passes)."""
    return all(r.passed for r in results)
