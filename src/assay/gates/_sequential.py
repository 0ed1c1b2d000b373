"""Sequential gates: rules on a rate that a run tests as its cases are drawn, stopping once
each is decided (``assay run --until-decided``, or ``sequential: true`` on a suite's gate).

A sequential rule passes or fails on its decided verdict; a run cut short never passes a
rule that was not sequential (its figure is over a sample, not the run's cases).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assay.errors import AssayConfigError
from assay.gates._rules import GateResult, Rule
from assay.report import PAIRED, Report, SequentialRule, SequentialSection, sequence_text

PER_TRIAL = "task_success_per_trial"
"""The per-trial task success, when a declared trial policy makes ``task_success`` its figure."""

DEFAULT_ALPHA = 0.05
"""The probability that a sequential run's verdict is wrong, at most."""

_SLICE = re.compile(r"^slices?\[(?P<name>[^\]]+)\]\.task_success$")
_ORDERED = (">=", ">", "<=", "<")
SEQUENTIAL_RATES = "task_success, task_success_per_trial or slice[NAME].task_success"


def sequential_problem(rule: Rule) -> str | None:
    """Why ``rule`` cannot be tested sequentially (None when it can)."""
    if rule.op not in _ORDERED:
        return f"{rule.op} cannot be decided on a sample; use >=, >, <= or <"
    if rule.path in ("task_success", PER_TRIAL) or _SLICE.match(rule.path):
        if rule.allow_na:
            return "allow_na has no meaning for a sequential rule"
        return None
    return f"only a case rate can be tested as cases are drawn: {SEQUENTIAL_RATES}"


def sequential_rule(rule: Rule, policy: str | None) -> dict[str, Any]:
    """What a run records of a sequential rule (``policy``: the run's trial policy)."""
    problem = sequential_problem(rule)
    if problem is not None:
        raise AssayConfigError(f"sequential gate {rule.text!r}: {problem}")
    found = _SLICE.match(rule.path)
    return {
        "rule": rule.text,
        "path": rule.path,
        "slice": found["name"] if found else None,
        "per_trial": rule.path == PER_TRIAL or (found is not None),
        "policy": policy or "mean",
        "op": rule.op,
        "threshold": rule.threshold,
    }


def _same(rule: Rule, entry: SequentialRule) -> bool:
    return (entry.path, entry.op, entry.threshold) == (rule.path, rule.op, rule.threshold)


def _count(n: int) -> str:
    return f"{n:,}"


def sequential_gate(report: Report, rule: Rule) -> GateResult | None:
    """``rule`` applied to a sequential run's report when its verdict rests on the run's
    sequential test (None: check the report's figure as for any run)."""
    section = report.sequential
    if section is None:
        return None
    entry = next((e for e in section.rules if _same(rule, e)), None)
    if entry is not None and entry.verdict is not None:
        return GateResult(
            rule=rule,
            passed=entry.verdict == "pass",
            actual=entry.score,
            margin=None,
            message=decided_message(section, entry),
        )
    if entry is not None and entry.path == PAIRED and not section.stopped_early:
        # every paired case ran: the full comparison decides, as a fixed run would
        passed = entry.score is not None and entry.score >= entry.threshold
        shown = f"{entry.score:+.4g}" if entry.score is not None else "n/a"
        return GateResult(
            rule=rule,
            passed=passed,
            actual=entry.score,
            margin=None,
            message=f"run minus baseline {entry.baseline} = {shown} over all "
            f"{_count(entry.cases)} paired cases, needs >= {entry.threshold:g}",
        )
    if not section.stopped_early:
        return None
    why = (
        "was not decided"
        if entry is not None
        else "is not sequential: its figure is over a sample, not every case"
    )
    return GateResult(
        rule=rule,
        passed=False,
        actual=None,
        margin=None,
        message=f"the run stopped after {_count(section.drawn)} of {_count(section.cases)} "
        f"cases (a seeded random sample) and this rule {why}",
    )


def paired_rules(report: Report) -> list[Rule]:
    """The paired rules of a sequential run ("not worse than a baseline run"), which no
    suite writes: a run's gates include them."""
    if report.sequential is None:
        return []
    return [
        Rule(text=e.rule, path=e.path, op=e.op, threshold=e.threshold)
        for e in report.sequential.rules
        if e.path == PAIRED
    ]


def paired_rule(baseline: str, scores: dict[str, float]) -> dict[str, Any]:
    """What a run records of the rule "not worse than run ``baseline``" (``scores``: the
    baseline's trials' mean for each case paired)."""
    return {
        "rule": f"not worse than {baseline}",
        "path": PAIRED,
        "slice": None,
        "per_trial": True,
        "policy": "mean",
        "op": ">=",
        "threshold": 0.0,
        "baseline": baseline,
        "baseline_scores": scores,
    }


def decided_message(section: SequentialSection, entry: SequentialRule) -> str:
    """'task_success: decided after 212 of 1,000 cases, …' for a decided rule."""
    side = "above" if (entry.verdict == "pass") == (entry.op in (">=", ">")) else "below"
    bounds = sequence_text(entry)
    shape = "+.4g" if entry.path == PAIRED else ".4g"
    score = f"{entry.score:{shape}}" if entry.score is not None else "n/a"
    what = f"run minus baseline {entry.baseline}" if entry.path == PAIRED else entry.path
    return (
        f"{what} = {score} over {_count(entry.drawn)} of {_count(entry.cases)} cases "
        f"drawn; decided after {_count(entry.decided_at or 0)}: confidence sequence {bounds} "
        f"lies {side} {entry.threshold:g} (wrong with probability at most "
        f"{entry.alpha * 100:g}%)"
    )


def sequential_texts(gates: object) -> list[str]:
    """The rules of a suite's ``gates:`` marked ``sequential: true``."""
    if not isinstance(gates, list):
        return []
    return [
        str(g["rule"])
        for g in gates
        if isinstance(g, dict) and g.get("sequential") is True and isinstance(g.get("rule"), str)
    ]


def gate_texts(gates: object) -> list[str]:
    """Every rule of a suite's ``gates:`` as text (a mapping gives its ``rule``)."""
    if gates is None:
        return []
    listed: Sequence[object] = gates if isinstance(gates, list) else [gates]
    return [str(g["rule"]) if isinstance(g, dict) else str(g) for g in listed]
