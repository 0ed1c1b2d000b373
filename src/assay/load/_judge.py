"""The judge's settings: a ``judge.yaml`` file (for ``assay score --grader`` and
``assay regrade``) or the keys of a suite's ``grader: {type: judge, ...}``.

Example::

    type: judge                      # optional in a file
    base_url: http://127.0.0.1:8765/v1
    model: smollm2-135m
    api_key_env: JUDGE_API_KEY       # optional; read when judging starts, never stored
    temperature: 0
    seed: 7
    response_mode: json_schema       # json_schema | json_object | text
    rubric:                          # used for cases without required/disallowed of their own
      pass_minimum: 2
      accepted_variations: ["a month"]
    repeats: 5                       # optional; ask 5 times about each answer
    verdict: majority                # first (default) | majority of the repeats
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay._urls import HttpUrl
from assay._validation import problems_from
from assay.cases import SourceLibrary
from assay.errors import AssayError, InputFormatError, Location, Problem
from assay.gates import calibration_gate_results
from assay.grading import MAX_REPEATS, RepeatVerdict
from assay.grading.judge import (
    CalibrationBounds,
    JudgeConfig,
    JudgeEndpoint,
    JudgeGrader,
    JudgeRubric,
    ResponseMode,
)
from assay.load._records import key_lines, key_location, read_text, read_yaml
from assay.report import CalibrationReport, calibration_problem

if TYPE_CHECKING:
    from assay.gates import GateResult


class CalibrationRequirement(CalibrationBounds):
    """A calibration report the judge's current version must have before judged figures
    pass a gate, and the bounds it must meet: the most its false-accept rate's upper bound
    may be, and optionally the most its false-reject rate's upper bound may be and the
    least its weighted kappa's lower bound may be."""

    report: str = Field(min_length=1)

    def bounds(self) -> CalibrationBounds:
        """The bounds alone, without the report's path."""
        return CalibrationBounds.model_validate(self.model_dump(exclude={"report"}))


class JudgeSettings(BaseModel):
    """Every key of a judge's settings (model, request, endpoint and rubric)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: Literal["judge"] = "judge"
    base_url: HttpUrl
    model: str = Field(min_length=1)
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    seed: int | None = None
    max_tokens: int | None = Field(default=600, ge=1)
    response_mode: ResponseMode = "json_schema"
    max_candidate_chars: int = Field(default=4000, ge=100)
    concurrency: int = Field(default=4, ge=1, le=1000)
    timeout_s: float = Field(default=120.0, gt=0)
    retries: int = Field(default=2, ge=0, le=20)
    rpm: float | None = Field(default=None, gt=0)
    rubric: JudgeRubric = Field(default_factory=JudgeRubric)
    calibration: CalibrationRequirement | None = None
    repeats: int = Field(
        default=1,
        ge=1,
        le=MAX_REPEATS,
        description="How many times the judge is asked about each recorded answer",
    )
    verdict: RepeatVerdict = Field(
        default="first",
        description="The verdict of an answer judged several times: the first repeat's, "
        "or the majority of the repeats' (a tie is ungraded)",
    )

    def grader(
        self, sources: SourceLibrary | None = None, base_dir: Path | None = None
    ) -> JudgeGrader:
        """The judge these settings describe."""
        config = JudgeConfig(
            model=self.model,
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=self.max_tokens,
            response_mode=self.response_mode,
            max_candidate_chars=self.max_candidate_chars,
        )
        endpoint = JudgeEndpoint(
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            concurrency=self.concurrency,
            timeout_s=self.timeout_s,
            retries=self.retries,
            rpm=self.rpm,
        )
        judge = JudgeGrader(
            config, self.rubric, sources, endpoint, repeats=self.repeats, verdict=self.verdict
        )
        if self.calibration is not None:
            path = Path(self.calibration.report)
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            judge.calibration = (str(path), self.calibration.bounds())
        return judge


def judge_settings(
    data: Any, locate: Callable[[str], Location], summary: str, prefix: str = ""
) -> JudgeSettings:
    """Validated judge settings from ``data``; every problem located by ``locate``."""
    if not isinstance(data, dict):
        where = locate(prefix.rstrip("."))
        raise InputFormatError(
            [Problem("judge settings are a mapping (base_url, model, rubric, …)", where)],
            summary=summary,
        )
    try:
        return JudgeSettings.model_validate(data)
    except ValidationError as err:
        problems = []
        for pr in problems_from(err, None, JudgeSettings):
            field = f"{prefix}{pr.field}" if pr.field else prefix.rstrip(".")
            message = pr.message.replace("; put free data under metadata", "")
            if pr.field and message.startswith(pr.field):
                message = prefix + message
            elif pr.field:
                message = message.replace(f'"{pr.field}"', f'"{prefix}{pr.field}"')
            problems.append(Problem(message, locate(field), field or None))
        raise InputFormatError(problems, summary=summary) from None


def load_judge(path: str | Path) -> JudgeSettings:
    """Judge settings from a YAML (or JSON) file, problems reported with file and line."""
    import yaml

    p = Path(path)
    data = read_yaml(p, "judge settings")
    lines = key_lines(yaml.compose(read_text(p), Loader=yaml.SafeLoader))

    def locate(dotted: str) -> Location:
        return key_location(p, lines, dotted)

    return judge_settings(data, locate, f"{p}: invalid judge settings")


@dataclass(frozen=True)
class CalibrationCheck:
    """A required calibration: the report at ``path`` must vouch for ``grader`` (``judge
    v1+…``, made of ``identity``, passing cases at ``pass_minimum``) within ``bounds``."""

    path: Path
    bounds: CalibrationBounds
    grader: str
    identity: dict[str, str]
    pass_minimum: int | None = None

    def results(self) -> list[GateResult]:
        """The requirement as gate results, one per bound (each fails with the reason when
        not met)."""
        report, unusable = read_calibration(self.path)
        if report is None:
            return calibration_gate_results(None, unusable, self.bounds)
        problem = calibration_problem(report, self.grader, self.identity, self.pass_minimum)
        return calibration_gate_results(report, problem, self.bounds)

    def shortfall(self) -> str | None:
        """Why the requirement is not met; None when it is."""
        failed: list[str] = []
        for found in self.results():
            reason = found.message.removeprefix("judge calibration: ")
            if not found.passed and reason not in failed:
                failed.append(reason)
        return "; ".join(failed) or None


def judge_calibration(judge: JudgeGrader) -> CalibrationCheck | None:
    """The calibration the judge's settings require, or None."""
    if judge.calibration is None:
        return None
    path, bounds = judge.calibration
    identity = {k: str(v) for k, v in judge.identity().items()}
    return CalibrationCheck(
        Path(path), bounds, f"judge v{judge.version}", identity, judge.rubric.pass_minimum
    )


def check_calibration(judge: JudgeGrader) -> str | None:
    """Why the judge's required calibration is not met (None when it is, or when none is
    required): the report is missing or unreadable, is for another judge version, or its
    false-accept upper bound is above the maximum."""
    check = judge_calibration(judge)
    return None if check is None else check.shortfall()


def read_calibration(path: str | Path) -> tuple[CalibrationReport | None, str | None]:
    """The calibration report at ``path`` (``assay calibrate -f json``), or why there is
    no usable one."""
    try:
        return CalibrationReport.model_validate_json(read_text(Path(path))), None
    except (AssayError, OSError, ValidationError) as err:
        first = str(err).splitlines()[0]
        return None, f"no usable calibration report {path}: {first}"
