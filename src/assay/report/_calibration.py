"""Calibration of a grader against human labels: how often it accepts what people reject,
rejects what they accept, and how far its 0–2 scores agree with theirs."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay._display import Displayed
from assay._json_schema import model_schema
from assay._version import __version__
from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalSetting,
    Kappa,
    KappaWeights,
    Rate,
    rate,
    weighted_kappa,
)
from assay.metrics import confusion_matrix as count_pairs
from assay.report._model import CaseRow

CALIBRATION_SCHEMA_VERSION = 1


class HumanLabel(BaseModel):
    """One human-reviewed case: a score on the 0–2 scale, or just pass/fail.

    Without ``trial`` the label is of every trial of case ``id``; with it, of that
    case-trial alone. ``items`` is the person's finding on each rubric item (R1 … present
    or absent), ``labelled_at`` when they gave the label, ``seed`` the review sample's,
    ``answer`` the digest of the answer labelled (``answer_digest``), so that the label is
    never counted against another answer to the same case."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str = Field(min_length=1)
    trial: int | None = Field(default=None, ge=1)
    human_score: int | None = Field(default=None, ge=0, le=2)
    human: Literal["pass", "fail"] | None = None
    reviewer: str | None = None
    note: str | None = None
    items: dict[str, Literal["present", "absent"]] | None = None
    labelled_at: str | None = None
    seed: int | None = None
    answer: str | None = Field(default=None, pattern="^[0-9a-f]{16}$")

    @model_validator(mode="after")
    def _one_verdict(self) -> HumanLabel:
        if (self.human_score is None) == (self.human is None):
            raise ValueError('give either human_score (0, 1 or 2) or human ("pass" or "fail")')
        return self

    def passes(self, minimum: int) -> bool:
        if self.human_score is not None:
            return self.human_score >= minimum
        return self.human == "pass"


class JudgedRow(BaseModel):
    """What the grader said about one case-trial (from a report or a stored run)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    trial: int = 1
    slice: str = ""
    status: str
    reason: str
    score: int | None = None
    answer: str | None = None


def row_answer(row: CaseRow) -> str:
    """The answer a report row records, as a person reads it: the text, else the fact,
    else why the system abstained."""
    return row.text or row.fact or row.abstain_reason or ""


def answer_digest(outcome: str | None, answer: str) -> str:
    """A short digest of one recorded answer (its outcome kind and its text): what a label
    written by the review page records of the answer it labels."""
    return hashlib.sha256(f"{outcome or ''}\n{answer}".encode()).hexdigest()[:16]


class Disagreement(BaseModel):
    """A labelled case where the grader and the person differ, with both explanations."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    trial: int
    slice: str
    kind: Literal["false accept", "false reject", "score differs"]
    human_score: int | None
    human_pass: bool
    judge_score: int | None
    judge_pass: bool
    human_note: str | None
    reviewer: str | None
    judge_reason: str


class Unjudged(BaseModel):
    """A labelled case without a usable judgment: ungraded, error or missing, or absent."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    trial: int | None
    status: str
    reason: str


class SliceAgreement(BaseModel):
    """Pass/fail agreement in one slice, over its judged labelled cases."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    slice: str
    agreement: Rate
    false_accepts: int
    false_rejects: int


class CalibrationReport(BaseModel, Displayed):
    """The calibration of a grader against human labels (``schema_version`` 1).

    ``judged`` labelled case-trials have a pass or fail; ``ungraded`` lists those without
    one (they count in no rate). ``false_accepts`` is over human-fail cases, and
    ``false_rejects`` over human-pass cases. ``confusion[h][j]`` counts human score ``h``
    against judge score ``j`` for cases with both scores; ``kappa`` is Cohen's weighted
    kappa over them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    schema_version: int = CALIBRATION_SCHEMA_VERSION
    assay_version: str = __version__
    labels_file: str
    judged_from: str
    graders: list[str]
    judge: dict[str, str] = Field(
        default_factory=dict,
        description="What the judge's version covers, as far as the judged results record "
        "it: judge_model and prompt_version (from the judgments), and from a stored run also "
        "rubric_version, grader_version and the request settings",
    )
    pass_minimum: int
    labelled: int
    judged: int
    ungraded: list[Unjudged]
    unlabelled: int
    false_accepts: Rate
    false_rejects: Rate
    agreement: Rate
    confusion: list[list[int]]
    scored_pairs: int
    kappa: Kappa
    slices: dict[str, SliceAgreement]
    disagreements: list[Disagreement]


def build_calibration(
    labels: Sequence[HumanLabel],
    rows: Sequence[JudgedRow],
    *,
    labels_file: str,
    judged_from: str,
    graders: Sequence[str] = (),
    judge: dict[str, str] | None = None,
    pass_minimum: int = 2,
    weights: KappaWeights = "linear",
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> CalibrationReport:
    """Compare every labelled case-trial in ``rows`` with its human label (a label of
    that trial, else a label of the case)."""
    by_key = {(label.id, label.trial): label for label in labels}
    seen = {(r.id, t) for r in rows for t in (None, r.trial)}
    unjudged = [
        Unjudged(
            id=label.id, trial=label.trial, status="absent", reason="not in the judged results"
        )
        for label in labels
        if (label.id, label.trial) not in seen
    ]

    def label_of(row: JudgedRow) -> HumanLabel | None:
        return by_key.get((row.id, row.trial)) or by_key.get((row.id, None))

    pairs: list[tuple[HumanLabel, JudgedRow, bool]] = []
    for row in rows:
        label = label_of(row)
        if label is None:
            continue
        if row.status not in ("passed", "failed"):
            unjudged.append(
                Unjudged(id=row.id, trial=row.trial, status=row.status, reason=row.reason)
            )
            continue
        if label.answer is not None and row.answer is not None and label.answer != row.answer:
            unjudged.append(
                Unjudged(
                    id=row.id,
                    trial=row.trial,
                    status="other answer",
                    reason="the label is of another answer to this case (a run whose answer "
                    "differs): label this run's answers",
                )
            )
            continue
        pairs.append((label, row, row.status == "passed"))

    def named(num: int, den: int, den_name: str, num_name: str) -> Rate:
        return rate(num, den, den_name, numerator_name=num_name, interval=interval)

    human_fail = [(lab, row, ok) for lab, row, ok in pairs if not lab.passes(pass_minimum)]
    human_pass = [(lab, row, ok) for lab, row, ok in pairs if lab.passes(pass_minimum)]
    accepts = sum(1 for _, _, ok in human_fail if ok)
    rejects = sum(1 for _, _, ok in human_pass if not ok)
    agree = sum(1 for lab, _, ok in pairs if ok == lab.passes(pass_minimum))
    scored = [
        (lab.human_score, row.score)
        for lab, row, _ in pairs
        if lab.human_score is not None and row.score is not None
    ]
    matrix = count_pairs([(h, j) for h, j in scored if h is not None and j is not None])
    return CalibrationReport(
        labels_file=labels_file,
        judged_from=judged_from,
        graders=list(graders),
        judge=dict(judge or {}),
        pass_minimum=pass_minimum,
        labelled=len(labels),
        judged=len(pairs),
        ungraded=unjudged,
        unlabelled=sum(1 for r in rows if label_of(r) is None),
        false_accepts=named(accepts, len(human_fail), "judged human-fail cases", "judge passes"),
        false_rejects=named(rejects, len(human_pass), "judged human-pass cases", "judge fails"),
        agreement=named(agree, len(pairs), "judged labelled cases", "same verdict"),
        confusion=matrix,
        scored_pairs=len(scored),
        kappa=weighted_kappa(matrix, weights, interval.confidence),
        slices=_slices(pairs, pass_minimum, interval),
        disagreements=[
            d for lab, row, ok in pairs if (d := _disagreement(lab, row, ok, pass_minimum))
        ],
    )


def _slices(
    pairs: Sequence[tuple[HumanLabel, JudgedRow, bool]],
    minimum: int,
    interval: IntervalSetting,
) -> dict[str, SliceAgreement]:
    names = sorted({row.slice for _, row, _ in pairs})
    found: dict[str, SliceAgreement] = {}
    for name in names:
        mine = [(lab.passes(minimum), ok) for lab, row, ok in pairs if row.slice == name]
        found[name] = SliceAgreement(
            slice=name,
            agreement=rate(
                sum(1 for h, j in mine if h == j),
                len(mine),
                f"judged cases in slice {name}",
                numerator_name="same verdict",
                interval=interval,
            ),
            false_accepts=sum(1 for h, j in mine if j and not h),
            false_rejects=sum(1 for h, j in mine if h and not j),
        )
    return found


def _disagreement(
    label: HumanLabel, row: JudgedRow, judge_pass: bool, minimum: int
) -> Disagreement | None:
    human_pass = label.passes(minimum)
    if judge_pass and not human_pass:
        kind: Literal["false accept", "false reject", "score differs"] = "false accept"
    elif human_pass and not judge_pass:
        kind = "false reject"
    elif label.human_score is not None and row.score is not None and label.human_score != row.score:
        kind = "score differs"
    else:
        return None
    return Disagreement(
        id=row.id,
        trial=row.trial,
        slice=row.slice,
        kind=kind,
        human_score=label.human_score,
        human_pass=human_pass,
        judge_score=row.score,
        judge_pass=judge_pass,
        human_note=label.note,
        reviewer=label.reviewer,
        judge_reason=row.reason,
    )


def calibration_problem(
    report: CalibrationReport,
    grader: str,
    identity: dict[str, str] | None = None,
    pass_minimum: int | None = None,
) -> str | None:
    """Why ``report`` is not a calibration of ``grader`` (``"judge v1+…"``, whose parts are
    ``identity``) passing cases at ``pass_minimum``; None when it is."""
    if grader not in report.graders:
        found = ", ".join(report.graders) or "no grader"
        changed = _changed(report.judge, identity or {})
        return f"the calibration report is for {found}, not the current {grader}{changed}"
    judged_at = report.judge.get("pass_minimum")
    if judged_at is not None and judged_at != str(report.pass_minimum):
        return (
            f"the calibration report counts a human pass at score {report.pass_minimum}, "
            f"but its judge passed cases at score {judged_at}"
        )
    if pass_minimum is not None and report.pass_minimum != pass_minimum:
        return (
            f"the calibration report counts a human pass at score {report.pass_minimum}, "
            f"but the judge passes a case at score {pass_minimum} (its rubric's "
            f"pass_minimum): calibrate again with --pass-minimum {pass_minimum}"
        )
    return None


def _changed(calibrated: dict[str, str], current: dict[str, str]) -> str:
    """Which recorded parts of the judge's version differ, as `` (judge_model: a → b)``."""
    shared = [k for k in calibrated if k in current]
    moved = [f"{k}: {calibrated[k]} → {current[k]}" for k in shared if calibrated[k] != current[k]]
    if moved:
        return f" ({'; '.join(moved)})"
    if shared:
        same = " and ".join(shared)
        return f" (same {same}: the rubric, grader version or request settings differ)"
    return ""


def calibration_schema() -> dict[str, Any]:
    """The JSON Schema of ``assay calibrate --format json`` (docs/calibration.schema.json)."""
    return model_schema(CalibrationReport, name="calibration", version=CALIBRATION_SCHEMA_VERSION)
