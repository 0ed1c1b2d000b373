"""Gates on a comparison, for CI: ``no-new-failures`` and rules like
``task_success_delta>=-0.02``."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from assay.compare._model import Comparison
from assay.errors import AssayConfigError, did_you_mean

NO_NEW_FAILURES = "no-new-failures"
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: math.isclose(a, b, abs_tol=1e-12),
}
_RULE = re.compile(r"^\s*([a-z_.]+)\s*(>=|<=|==|>|<)\s*([-+]?[0-9.]+(?:e[-+]?\d+)?)(%?)\s*$")


def _lost_passes(c: Comparison) -> list[str]:
    """Newly broken ids, and ids whose pass became an error, missing or ungraded."""
    lost = [f"{x.id}" + (f" #{x.trial}" if x.trial > 1 else "") for x in c.broken]
    lost += [
        f"{m.id}" + (f" #{m.trial}" if m.trial > 1 else "") + f" ({m.from_} -> {m.to})"
        for m in c.moved
        if m.from_ == "passed"
    ]
    return lost


def _metric(c: Comparison, name: str) -> float | None:
    d = c.task_success_delta
    values: dict[str, float | None] = {
        "task_success_delta": d.value,
        "task_success_delta.low": d.ci95[0] if d.ci95 else None,
        "task_success_delta.high": d.ci95[1] if d.ci95 else None,
        "newly_broken": float(len(c.broken)),
        "newly_fixed": float(len(c.fixed)),
        "p_value": c.mcnemar.p_value,
        "candidate.task_success": c.candidate.task_success.value,
        "baseline.task_success": c.baseline.task_success.value,
    }
    if name not in values:
        raise AssayConfigError(
            f"--gate {name}: unknown comparison figure{did_you_mean(name, list(values))}; "
            f"choose {NO_NEW_FAILURES} or one of {', '.join(values)}"
        )
    return values[name]


@dataclass(frozen=True)
class CompareGate:
    """A gate's outcome: the rule, whether it passed and a sentence saying by how much."""

    rule: str
    passed: bool
    detail: str


def check_gate(comparison: Comparison, rule: str) -> CompareGate:
    """Apply one gate rule; an n/a figure fails the gate (nothing to compare never passes)."""
    if rule.strip() == NO_NEW_FAILURES:
        lost = _lost_passes(comparison)
        detail = (
            "nothing that passed in the baseline fails in the candidate"
            if not lost
            else f"{len(lost)} newly failing: {', '.join(lost)}"
        )
        return CompareGate(rule, not lost, detail)
    found = _RULE.match(rule)
    if not found:
        raise AssayConfigError(
            f"--gate {rule!r}: not a gate; write {NO_NEW_FAILURES} or FIGURE OP NUMBER, "
            'e.g. "task_success_delta>=-0.02"'
        )
    name, op, number, pct = found.groups()
    try:
        threshold = float(number) / (100 if pct else 1)
    except ValueError as err:
        raise AssayConfigError(f"--gate {rule!r}: {number!r} is not a number") from err
    actual = _metric(comparison, name)
    if actual is None:
        return CompareGate(rule, False, f"{name} is n/a (no paired cases)")
    passed = _OPS[op](actual, threshold)
    by = actual - threshold
    detail = f"{name} = {actual:+.4g} (threshold {op} {threshold:g}; off by {by:+.4g})"
    return CompareGate(rule, passed, detail)
