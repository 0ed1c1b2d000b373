"""A suite's ``gates:`` key: rules checked on the report after ``assay run`` (parsed and
evaluated in ``assay.gates``; here, what the command reads, prints and exits with)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from assay.errors import AssayConfigError, AssayError
from assay.gates import parse_gates

if TYPE_CHECKING:
    from assay.gates import Rule
    from assay.load import CalibrationCheck, Suite
    from assay.report import Report
    from assay.store import RunInfo


def suite_rules(suite: Suite) -> list[Rule]:
    """The suite's gate rules, parsed before anything runs (a bad rule stops the run)."""
    return parse_gates(suite.settings.gates, str(suite.locate("gates")))


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


def corrected(report: Report, check: CalibrationCheck | None) -> Report:
    """``report`` with its task success corrected for its judge's errors as the calibration
    ``check`` names measured them, or with why it is not (a calibration of another judge,
    named by what differs; one too small; a judge no better than chance); ``report`` as it
    is when no calibration is named."""
    if check is None:
        return report
    from assay.load import read_calibration
    from assay.report import calibration_problem, judge_correction

    calibration, unusable = read_calibration(check.path)
    problem = unusable
    if calibration is not None:
        problem = calibration_problem(calibration, check.grader, check.identity, check.pass_minimum)
    found = judge_correction(
        report.task_success, report.statuses, calibration, str(check.path), check.grader, problem
    )
    return report.model_copy(update={"judge_correction": found})


def stored_calibration(info: RunInfo) -> CalibrationCheck | None:
    """The calibration a stored run's suite requires of its judge (None when it requires
    none): the suite's judge settings as stored, a ``settings`` file and the report path
    relative to the suite file."""
    import json
    from pathlib import Path

    from pydantic import ValidationError

    grader = info.suite.get("grader")
    if not isinstance(grader, dict) or grader.get("type") != "judge":
        return None  # before the judge's settings are loaded: a run judged otherwise needs none
    from assay.load import CalibrationCheck, CalibrationRequirement, load_judge

    base = Path(info.suite_path).parent if info.suite_path else Path.cwd()
    if isinstance(grader.get("settings"), str):
        settings_path = base / grader["settings"]
        try:
            required = load_judge(settings_path).calibration
        except AssayError as err:
            raise AssayConfigError(
                f"run {info.id}: cannot read its judge settings {settings_path} to check the "
                f"calibration they require: {str(err).splitlines()[0]}"
            ) from None
        base = settings_path.parent
    elif grader.get("calibration") is None:
        return None
    else:
        try:
            required = CalibrationRequirement.model_validate(grader["calibration"])
        except ValidationError as err:
            problem = err.errors()[0]["msg"]
            raise AssayConfigError(
                f"run {info.id}: its suite's grader.calibration is invalid: {problem}"
            ) from None
    if required is None:
        return None
    judge = next((g for g in info.graders if g.get("name") == "judge"), None)
    if judge is None:
        raise AssayConfigError(
            f"run {info.id}: its suite requires a judge calibration, but no model judge graded it"
        )
    path = Path(required.report)
    identity = {k: v for k, v in judge.items() if k not in ("name", "version", "config", "rubric")}
    rubric: Any = judge.get("rubric") or {}
    if isinstance(rubric, str):
        rubric = json.loads(rubric)
    return CalibrationCheck(
        path if path.is_absolute() else base / path,
        required.bounds(),
        f"judge v{judge['version']}",
        identity,
        rubric.get("pass_minimum", 2),
    )


def check_gates(report: Report, rules: list[Rule], blocked: str | None = None) -> bool:
    """Apply ``rules`` to ``report``, say what happened on stderr; True when all hold.

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
    outcome = GateOutcome.of(evaluate_gates(report, rules), report)
    sys.stderr.write(render(outcome, "text"))
    return outcome.passed
