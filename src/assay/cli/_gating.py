"""A suite's ``gates:`` key: rules checked on the report after ``assay run`` (parsed and
evaluated in ``assay.gates``; here, what the command reads, prints and exits with)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.gates import Baseline, Rule
    from assay.report import Report


def check_gates(
    report: Report,
    rules: list[Rule],
    blocked: str | None = None,
    baseline: Baseline | None = None,
) -> bool:
    """Apply ``rules`` to ``report`` (``not_worse_than_baseline(MARGIN)`` against
    ``baseline``), say what happened on stderr; True when all hold.

    ``blocked`` (a judge's missing calibration) fails every gate before any is checked.
    """
    from assay.gates import GateOutcome, evaluate_gates
    from assay.render import render

    if blocked is not None:
        verdict = "FAILED" if rules else "note"
        sys.stderr.write(f"gate {verdict}: judge calibration: {blocked}\n")
        if rules:
            return False
    if not rules:
        return True
    outcome = GateOutcome.of(evaluate_gates(report, rules, baseline), report)
    sys.stderr.write(render(outcome, "text"))
    return outcome.passed
