"""Gates on a comparison, for CI: ``no-new-failures``, ``not_worse_than_baseline(0.02)``
(non-inferiority by a margin) and rules like ``task_success_delta>=-0.02``."""

from __future__ import annotations

from dataclasses import dataclass

from assay.compare import Comparison, non_inferiority
from assay.errors import AssayConfigError, did_you_mean
from assay.gates._rules import NOT_WORSE, OPERATORS, check_scale, split_rule

NO_NEW_FAILURES = "no-new-failures"
# The comparison's figures on a rate's scale, and the lowest value each can take.
_SCALES = {
    "task_success_delta": -1.0,
    "task_success_delta.low": -1.0,
    "task_success_delta.high": -1.0,
    "p_value": 0.0,
    "candidate.task_success": 0.0,
    "baseline.task_success": 0.0,
}


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
        "task_success_delta.low": d.ci[0] if d.ci else None,
        "task_success_delta.high": d.ci[1] if d.ci else None,
        "newly_broken": float(len(c.broken)),
        "newly_fixed": float(len(c.fixed)),
        "p_value": c.mcnemar.p_value,
        "candidate.task_success": c.candidate.task_success.value,
        "baseline.task_success": c.baseline.task_success.value,
    }
    if name not in values:
        raise AssayConfigError(
            f"--gate {name}: unknown comparison figure{did_you_mean(name, list(values))}; "
            f"choose {NO_NEW_FAILURES}, {NOT_WORSE}(MARGIN) or one of {', '.join(values)}"
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
    parts = split_rule(rule, "--gate")
    if parts.call:
        found = non_inferiority(comparison.task_success_delta, parts.threshold)
        if found.verdict is None and parts.allow_na:
            return CompareGate(rule, True, f"{found.summary} (allowed)")
        return CompareGate(rule, found.passed, found.summary)
    name = parts.path
    actual = _metric(comparison, name)
    if name in _SCALES:
        check_scale(rule, parts, _SCALES[name], "--gate")
    if actual is None:
        why = f"{name} is n/a (no paired cases)"
        return CompareGate(rule, parts.allow_na, why + (" (allowed)" if parts.allow_na else ""))
    passed = OPERATORS[parts.op](actual, parts.threshold)
    by = actual - parts.threshold
    detail = f"{name} = {actual:+.4g} (threshold {parts.op} {parts.threshold:g}; off by {by:+.4g})"
    return CompareGate(rule, passed, detail)
