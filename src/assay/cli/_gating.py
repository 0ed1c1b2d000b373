"""A suite's ``gates:`` key: rules checked on the report after ``assay run`` (parsed and
evaluated in ``assay.gates``; here, what the command reads, prints and exits with)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from assay.gates import parse_gates

if TYPE_CHECKING:
    from assay.gates import Baseline, Rule
    from assay.load import CalibrationCheck, Suite
    from assay.report import Report
    from assay.store import RunInfo


def stored_rules(info: RunInfo) -> list[Rule]:
    """The gate rules of the suite a stored run was started with (``assay run --resume``)."""
    return parse_gates(info.suite.get("gates"), f"run {info.id}: its suite's gates")


def suite_calibration(suite: Suite | None) -> CalibrationCheck | None:
    """The calibration a suite's model judge's settings name (None when they name none, or
    the suite's grader is not a judge)."""
    if suite is None or suite.settings.grader.type != "judge":
        return None
    from assay.grading.judge import JudgeGrader
    from assay.load import judge_calibration

    grader = suite.grader()
    return judge_calibration(grader) if isinstance(grader, JudgeGrader) else None


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
