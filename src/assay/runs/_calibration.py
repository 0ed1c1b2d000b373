"""A run's judge calibration: the one its suite requires (``suite_calibration``; of a stored
run, ``stored_calibration``), and a report's task success corrected for the judge's errors
it measured (``corrected``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from assay.errors import AssayConfigError, AssayError
from assay.report import Report, judge_correction, trials_design_effect
from assay.store import RunInfo

if TYPE_CHECKING:
    from assay.load import CalibrationCheck, Suite
    from assay.report._calibration import CalibrationReport


def corrected(report: Report, check: CalibrationCheck | None) -> Report:
    """``report`` with its task success corrected for its judge's errors as the calibration
    ``check`` names measured them, or with why it is not (a calibration of another judge,
    named by what differs; one too small; a judge no better than chance); ``report`` as it
    is when no calibration is named."""
    if check is None:
        return report
    calibration, problem = applicable(check)
    found = judge_correction(
        report.task_success,
        report.statuses,
        calibration,
        str(check.path),
        check.grader,
        problem,
        design_effect=trials_design_effect(report.task_success, report.trial_summary),
    )
    return report.model_copy(update={"judge_correction": found})


def applicable(check: CalibrationCheck) -> tuple[CalibrationReport | None, str | None]:
    """The calibration ``check`` names and why it does not apply to the run's judge (a
    calibration of another judge, named by what differs; counting passes at another
    score; no usable report), None when it applies: the one decision of applicability."""
    # Deferred with the judge's modules (see ``stored_calibration``).
    from assay.load import read_calibration
    from assay.report import calibration_problem

    calibration, unusable = read_calibration(check.path)
    if calibration is None:
        return None, unusable
    problem = calibration_problem(calibration, check.grader, check.identity, check.pass_minimum)
    return calibration, problem


NO_JUDGE = "-"
APPLIES = "applies"


def calibration_state(info: RunInfo) -> str:
    """Whether a calibration applies to stored run ``info``'s model judge: "applies",
    "stale: <what differs>" (or why none can be used), "none" when its suite names none,
    and "-" for a run no model judge graded."""
    if not any(g.get("name") == "judge" for g in info.graders):
        return NO_JUDGE
    try:
        check = stored_calibration(info)
    except AssayError as err:
        return f"stale: {str(err).splitlines()[0]}"
    if check is None:
        return "none"
    _, problem = applicable(check)
    return APPLIES if problem is None else f"stale: {problem}"


def stored_calibration(info: RunInfo) -> CalibrationCheck | None:
    """The calibration a stored run's suite requires of its judge (None when it requires
    none): the suite's judge settings as stored, a ``settings`` file and the report path
    relative to the suite file."""
    grader = info.suite.get("grader")
    if not isinstance(grader, dict) or grader.get("type") != "judge":
        return None  # before the judge's settings are loaded: a run judged otherwise needs none
    # Deferred: the judge's settings load its client's modules, which a run judged
    # otherwise (and the start-up of `assay report`) never needs.
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


def suite_calibration(suite: Suite | None) -> CalibrationCheck | None:
    """The calibration a suite's model judge's settings name (None when they name none, or
    the suite's grader is not a judge)."""
    if suite is None or suite.settings.grader.type != "judge":
        return None
    # Deferred with the judge's modules (see ``stored_calibration``).
    from assay.grading.judge import JudgeGrader
    from assay.load import judge_calibration

    grader = suite.grader()
    return judge_calibration(grader) if isinstance(grader, JudgeGrader) else None
