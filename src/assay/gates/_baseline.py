"""``not_worse_than_baseline(MARGIN)`` on one report (``assay gate``, a suite's ``gates:``):
the report against a baseline report, on the paired interval of the task-success
difference, as ``assay compare --margin`` decides it."""

from __future__ import annotations

from dataclasses import dataclass

from assay.gates._rules import GateResult, Rule
from assay.metrics import IntervalSetting
from assay.report import Report


@dataclass(frozen=True)
class Baseline:
    """What a report's ``not_worse_than_baseline(MARGIN)`` compares with: the baseline's
    report and which run or file it is (``named``, e.g. ``run r-1, the suite's last
    completed run on this dataset``), or no report and why there is none (``named``)."""

    report: Report | None
    named: str

    @classmethod
    def missing(cls, why: str) -> Baseline:
        """No baseline, and why."""
        return cls(None, why)


NO_BASELINE = Baseline.missing("no baseline was given to compare with")


def not_worse_result(report: Report, rule: Rule, baseline: Baseline | None) -> GateResult:
    """``rule`` (``not_worse_than_baseline(MARGIN)``, its margin the rule's threshold)
    applied to ``report`` against ``baseline``. No baseline, or one that does not pair
    with the report, fails the rule with the reason unless it ends in ``allow_na``."""
    # deferred: the comparison's modules load only for a rule against a baseline, not with
    # every suite's gates
    from assay.compare import ComparisonRefusedError, RunSide, compare_runs
    from assay.gates._comparison import check_gate

    found = baseline or NO_BASELINE
    if found.report is None:
        return _na(rule, found.named)
    setting = IntervalSetting(report.task_success.confidence, report.task_success.method)
    try:
        comparison = compare_runs(
            RunSide.from_report(found.report, ref="the baseline"),
            RunSide.from_report(report, ref="this run"),
            interval=setting,
        )
    except ComparisonRefusedError as err:
        why = f"the baseline ({found.named}) and this run do not pair: {err.differences[0]}"
        return _na(rule, why)
    outcome = check_gate(comparison, rule.text)
    low = comparison.task_success_delta.ci[0] if comparison.task_success_delta.ci else None
    return GateResult(
        rule=rule,
        passed=outcome.passed,
        actual=low,
        margin=None if low is None else low + rule.threshold,
        message=f"{outcome.detail} (baseline: {found.named})",
    )


def _na(rule: Rule, why: str) -> GateResult:
    allowed = " (allowed)" if rule.allow_na else ""
    return GateResult(
        rule=rule, passed=rule.allow_na, actual=None, margin=None, message=f"n/a: {why}{allowed}"
    )
