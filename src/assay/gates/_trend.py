"""Gates on a suite's trend: the latest run against the previous one or a tagged run.

Rules:

- ``no_new_failures_vs_last``: nothing that passed in the previous run fails (or errs,
  goes missing or ungraded) in the latest; ``no_new_failures_vs_TAG`` against the run
  tagged TAG (``assay runs tag RUN TAG``). The two runs must pair (same dataset version).
- ``PATH OP RHS``: a figure of the latest run (as ``assay gate`` names it, e.g.
  ``task_success.low``) against a number, or against a reference run's figure:
  ``last`` or a tag, alone (the same figure), with ``.low``/``.high``/``.value`` (that
  bound of the same rate) or with a full path, optionally plus or minus a margin:
  ``task_success.low>=baseline.low``, ``task_success>=baseline-0.02``.
- ``not_worse_than_baseline(MARGIN)``: the latest run is not worse than the run tagged
  ``baseline`` by more than MARGIN, on the paired interval of the task-success difference
  (as ``assay compare --margin``).

An n/a figure, a missing reference run or runs that cannot pair fail the rule unless it
ends in ``allow_na``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from assay.compare import ComparisonRefusedError, RunSide, compare_runs
from assay.errors import AssayConfigError
from assay.gates._comparison import NO_NEW_FAILURES, check_gate
from assay.gates._report import check_rule, parse_rule, resolve
from assay.gates._rules import BASELINE, NOT_WORSE, GateResult, Rule, split_rule
from assay.trend import SuiteRun

LAST = "last"
_NO_NEW = re.compile(
    r"^\s*no_new_failures_vs_(?P<ref>[A-Za-z0-9][A-Za-z0-9_.-]*)\s*(?P<na>allow_na)?\s*$"
)
_RULE = re.compile(
    r"^\s*(?P<path>[^<>=!\s]+)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?P<rhs>[^\s]+?)"
    r"(?:\s+(?P<flag>allow_na))?\s*$"
)
_REF = re.compile(
    r"^(?P<ref>[A-Za-z][A-Za-z0-9_-]*)(?:\.(?P<path>[A-Za-z_][A-Za-z0-9_.\[\]-]*?))?"
    r"(?:(?P<sign>[-+])(?P<margin>[0-9.]+(?:e[-+]?\d+)?)(?P<pct>%)?)?$"
)
_BOUNDS = ("low", "high", "value")


@dataclass(frozen=True)
class TrendRule:
    """A parsed trend rule: a no-new-failures check, or a figure against a reference."""

    text: str
    reference: str | None
    rule: Rule | None = None
    ref_path: str | None = None
    margin: float = 0.0
    allow_na: bool = False
    not_worse_by: float | None = None
    """The margin of ``not_worse_than_baseline(MARGIN)``; None for any other rule."""


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("%"))
    except ValueError:
        return False
    return True


def _base(path: str) -> str:
    head, _, tail = path.rpartition(".")
    return head if head and tail in ("low", "high") else path


def parse_trend_rule(text: str) -> TrendRule:
    """``TrendRule`` for ``text``; raises ``AssayConfigError`` saying what is wrong."""
    found = _NO_NEW.match(text)
    if found:
        return TrendRule(text.strip(), found["ref"], allow_na=bool(found["na"]))
    if "(" in text:  # a check called with its margin: the one rule syntax reads it
        parts = split_rule(text, "trend rule")
        return TrendRule(
            text.strip(), BASELINE, allow_na=parts.allow_na, not_worse_by=parts.threshold
        )
    found = _RULE.match(text)
    if found is None:
        raise AssayConfigError(
            f"trend rule {text!r}: expected no_new_failures_vs_last, no_new_failures_vs_TAG "
            "or FIELD OP (NUMBER | last | TAG)[.FIELD][+-NUMBER], e.g. "
            "'task_success.low>=baseline.low'"
        )
    path, op, rhs, flag = found["path"], found["op"], found["rhs"], found["flag"]
    if _is_number(rhs):
        suffix = f" {flag}" if flag else ""
        rule = parse_rule(f"{path}{op}{rhs}{suffix}")
        return TrendRule(text.strip(), None, rule=rule, allow_na=rule.allow_na)
    ref = _REF.match(rhs)
    if ref is None:
        raise AssayConfigError(
            f"trend rule {text!r}: {rhs!r} is neither a number nor a reference such as "
            "last, baseline, baseline.low or baseline-0.02"
        )
    rule = parse_rule(f"{path}{op}0")
    ref_path = ref["path"] or path
    if ref_path in _BOUNDS:
        ref_path = _base(path) if ref_path == "value" else f"{_base(path)}.{ref_path}"
    parse_rule(f"{ref_path}>=0")  # the reference's field must exist too
    margin = 0.0
    if ref["margin"] is not None:
        margin = float(ref["margin"]) / (100 if ref["pct"] else 1)
        margin = -margin if ref["sign"] == "-" else margin
    return TrendRule(
        text.strip(), ref["ref"], rule=rule, ref_path=ref_path, margin=margin, allow_na=bool(flag)
    )


def _na(rule: TrendRule, why: str, path: str = "trend") -> GateResult:
    shown = Rule(text=rule.text, path=path, op="==", threshold=0.0, allow_na=rule.allow_na)
    if rule.allow_na:
        return GateResult(
            rule=shown, passed=True, actual=None, margin=None, message=f"n/a: {why} (allowed)"
        )
    return GateResult(rule=shown, passed=False, actual=None, margin=None, message=f"n/a: {why}")


def _side(run: SuiteRun) -> RunSide:
    return RunSide.from_report(run.report, ref=run.id)


def _no_new_failures(rule: TrendRule, latest: SuiteRun, reference: SuiteRun) -> GateResult:
    try:
        comparison = compare_runs(_side(reference), _side(latest))
    except ComparisonRefusedError as err:
        return _na(rule, f"{reference.id} and {latest.id} do not pair: {err.differences[0]}")
    outcome = check_gate(comparison, NO_NEW_FAILURES)
    lost = len(comparison.broken) + sum(1 for m in comparison.moved if m.from_ == "passed")
    shown = Rule(text=rule.text, path="newly_failing", op="==", threshold=0.0)
    return GateResult(
        rule=shown,
        passed=outcome.passed,
        actual=float(lost),
        margin=float(lost),
        message=f"{latest.id} vs {reference.id}: {outcome.detail}",
    )


def _not_worse(rule: TrendRule, margin: float, latest: SuiteRun, reference: SuiteRun) -> GateResult:
    """The latest run against the baseline run by ``not_worse_than_baseline(margin)``."""
    try:
        comparison = compare_runs(_side(reference), _side(latest))
    except ComparisonRefusedError as err:
        return _na(rule, f"{reference.id} and {latest.id} do not pair: {err.differences[0]}")
    outcome = check_gate(comparison, f"{NOT_WORSE}({margin!r}){' allow_na' * rule.allow_na}")
    shown = Rule(text=rule.text, path=NOT_WORSE, op=">=", threshold=-margin)
    delta = comparison.task_success_delta
    return GateResult(
        rule=shown,
        passed=outcome.passed,
        actual=delta.ci[0] if delta.ci is not None else None,
        margin=delta.ci[0] + margin if delta.ci is not None else None,
        message=f"{latest.id} vs {BASELINE} = {reference.id}: {outcome.detail}",
    )


def check_trend_rule(
    rule: TrendRule, latest: SuiteRun, references: Mapping[str, SuiteRun | None]
) -> GateResult:
    """``rule`` applied to the latest run; ``references`` maps ``last`` and every tag the
    rules name to its run (None when there is no such run)."""
    reference = references.get(rule.reference) if rule.reference is not None else None
    if rule.reference is not None and reference is None:
        what = "no previous run" if rule.reference == LAST else f"no run tagged {rule.reference!r}"
        return _na(rule, f"{what} in this suite")
    if rule.not_worse_by is not None:
        assert reference is not None
        return _not_worse(rule, rule.not_worse_by, latest, reference)
    if rule.rule is None:
        assert reference is not None
        return _no_new_failures(rule, latest, reference)
    if reference is None:
        return _labelled(check_rule(latest.report, rule.rule), latest, rule)
    assert rule.ref_path is not None
    ref_rule = Rule(text=rule.text, path=rule.ref_path, op=">=", threshold=0.0)
    value, _ = resolve(reference.report, ref_rule)
    if value is None:
        return _na(rule, f"{rule.ref_path} is n/a in {reference.id}", rule.rule.path)
    threshold = value + rule.margin
    bound = rule.rule.model_copy(
        update={"threshold": threshold, "allow_na": rule.allow_na, "text": rule.text}
    )
    result = check_rule(latest.report, bound)
    where = f" ({rule.reference} = {reference.id}: {rule.ref_path} = {value:.4g}"
    where += f", {rule.margin:+g})" if rule.margin else ")"
    return _labelled(result.model_copy(update={"message": result.message + where}), latest, rule)


def _labelled(result: GateResult, latest: SuiteRun, rule: TrendRule) -> GateResult:
    shown = result.rule.model_copy(update={"text": rule.text})
    return result.model_copy(update={"message": f"{latest.id}: {result.message}", "rule": shown})


def trend_gate(
    rules: list[TrendRule], runs: list[SuiteRun], tags: Mapping[str, SuiteRun]
) -> tuple[SuiteRun | None, list[GateResult]]:
    """Every rule applied to the newest of ``runs`` (oldest first); ``tags`` maps tag names
    to tagged runs of the suite. Returns the latest run and the results."""
    if not runs:
        return None, [_na(r, "the suite has no run to gate") for r in rules]
    latest = runs[-1]
    references: dict[str, SuiteRun | None] = {**tags, LAST: runs[-2] if len(runs) > 1 else None}
    return latest, [check_trend_rule(rule, latest, references) for rule in rules]
