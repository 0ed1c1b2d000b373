"""Gates: rules that pass or fail a run in CI, on a report (``assay gate``, a suite's
``gates:``), a comparison (``assay compare --gate``), a suite's trend (``assay gate --trend``)
and a judge's calibration. They sit above what they read (report, compare, trend) and below
the render layer, which draws their outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.gates._baseline import Baseline
    from assay.gates._calibration import calibration_gate_results
    from assay.gates._comparison import NO_NEW_FAILURES, CompareGate, check_gate
    from assay.gates._outcome import GateOutcome
    from assay.gates._report import (
        check_rule,
        evaluate_gates,
        needs_baseline,
        parse_gates,
        parse_rule,
        resolve,
        validate_rule,
    )
    from assay.gates._rules import (
        BASELINE,
        OPERATORS,
        GateResult,
        Rule,
        RuleParts,
        check_margin,
        check_scale,
        gates_passed,
        split_rule,
    )
    from assay.gates._sequential import (
        DEFAULT_ALPHA,
        SEQUENTIAL_RATES,
        decided_message,
        gate_texts,
        paired_rule,
        paired_rules,
        sequential_gate,
        sequential_problem,
        sequential_rule,
        sequential_texts,
    )
    from assay.gates._trend import LAST, TrendRule, parse_trend_rule, trend_gate

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "Baseline": "assay.gates._baseline",
    "calibration_gate_results": "assay.gates._calibration",
    "NO_NEW_FAILURES": "assay.gates._comparison",
    "CompareGate": "assay.gates._comparison",
    "check_gate": "assay.gates._comparison",
    "GateOutcome": "assay.gates._outcome",
    "check_rule": "assay.gates._report",
    "evaluate_gates": "assay.gates._report",
    "needs_baseline": "assay.gates._report",
    "parse_gates": "assay.gates._report",
    "parse_rule": "assay.gates._report",
    "resolve": "assay.gates._report",
    "validate_rule": "assay.gates._report",
    "OPERATORS": "assay.gates._rules",
    "GateResult": "assay.gates._rules",
    "Rule": "assay.gates._rules",
    "RuleParts": "assay.gates._rules",
    "check_margin": "assay.gates._rules",
    "check_scale": "assay.gates._rules",
    "gates_passed": "assay.gates._rules",
    "split_rule": "assay.gates._rules",
    "DEFAULT_ALPHA": "assay.gates._sequential",
    "SEQUENTIAL_RATES": "assay.gates._sequential",
    "decided_message": "assay.gates._sequential",
    "gate_texts": "assay.gates._sequential",
    "paired_rule": "assay.gates._sequential",
    "paired_rules": "assay.gates._sequential",
    "sequential_gate": "assay.gates._sequential",
    "sequential_problem": "assay.gates._sequential",
    "sequential_rule": "assay.gates._sequential",
    "sequential_texts": "assay.gates._sequential",
    "BASELINE": "assay.gates._rules",
    "LAST": "assay.gates._trend",
    "TrendRule": "assay.gates._trend",
    "parse_trend_rule": "assay.gates._trend",
    "trend_gate": "assay.gates._trend",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)

__all__ = [
    "BASELINE",
    "DEFAULT_ALPHA",
    "LAST",
    "NO_NEW_FAILURES",
    "OPERATORS",
    "SEQUENTIAL_RATES",
    "Baseline",
    "CompareGate",
    "GateOutcome",
    "GateResult",
    "Rule",
    "RuleParts",
    "TrendRule",
    "calibration_gate_results",
    "check_gate",
    "check_margin",
    "check_rule",
    "check_scale",
    "decided_message",
    "evaluate_gates",
    "gate_texts",
    "gates_passed",
    "needs_baseline",
    "paired_rule",
    "paired_rules",
    "parse_gates",
    "parse_rule",
    "parse_trend_rule",
    "resolve",
    "sequential_gate",
    "sequential_problem",
    "sequential_rule",
    "sequential_texts",
    "split_rule",
    "trend_gate",
    "validate_rule",
]
