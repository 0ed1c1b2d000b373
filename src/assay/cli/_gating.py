"""A suite's ``gates:`` key: rules checked on the report after ``assay run``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from assay.errors import AssayConfigError, AssayError

if TYPE_CHECKING:
    from assay.load import Suite
    from assay.report import Report, Rule
    from assay.store import RunInfo


def suite_rules(suite: Suite) -> list[Rule]:
    """The suite's gate rules, parsed before anything runs (a bad rule stops the run)."""
    return parse_gates(suite.settings.gates, str(suite.locate("gates")))


def stored_rules(info: RunInfo) -> list[Rule]:
    """The gate rules of the suite a stored run was started with (``assay run --resume``)."""
    return parse_gates(info.suite.get("gates"), f"run {info.id}: its suite's gates")


def parse_gates(gates: object, where: str) -> list[Rule]:
    """Rules from a suite's ``gates:`` value (a rule or a list of rules); ``where`` names
    the value in errors."""
    from assay.report import parse_rule

    if gates is None:
        return []
    if isinstance(gates, str):
        gates = [gates]
    if not isinstance(gates, list) or not all(isinstance(g, str) for g in gates):
        raise AssayConfigError(
            f"{where}: gates must be a list of rules such as "
            "'task_success>=0.8' or 'answered_accuracy.low>=0.6 allow_na'"
        )
    try:
        return [parse_rule(rule) for rule in gates]
    except AssayError as err:
        raise AssayConfigError(f"{where}: {err}") from None


def calibration_gate(suite: Suite | None) -> str | None:
    """Why a suite's model judge lacks the calibration its settings require (None when it
    has it, needs none, or the suite's grader is not a judge)."""
    if suite is None or suite.settings.grader.type != "judge":
        return None
    from assay.grading.judge import JudgeGrader
    from assay.load import check_calibration

    grader = suite.grader()
    return check_calibration(grader) if isinstance(grader, JudgeGrader) else None


def check_gates(report: Report, rules: list[Rule], blocked: str | None = None) -> bool:
    """Apply ``rules`` to ``report``, say what happened on stderr; True when all hold.

    ``blocked`` (a judge's missing calibration) fails every gate before any is checked.
    """
    from assay.report import evaluate_gates, gates_passed
    from assay.report.render.gates import render_gates_text

    if blocked is not None:
        verdict = "FAILED" if rules else "note"
        sys.stderr.write(f"gate {verdict}: judge calibration: {blocked}\n")
        if rules:
            return False
    if not rules:
        return True
    results = evaluate_gates(report, rules)
    sys.stderr.write(render_gates_text(results))
    return gates_passed(results)
