"""The judged answers of a stored run that a person can label: what the review page shows
of each, and the run they come from (a run id, or a suite's latest judged run)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from assay.cases import Case
from assay.errors import AssayInputError
from assay.grading.judge import JudgeRubric, rubric_for
from assay.report import CaseRow, answer_digest, row_answer
from assay.runner import suite_names, suite_runs
from assay.runs import report_for_run
from assay.store import RunInfo, RunStore


@dataclass(frozen=True)
class JudgedAnswer:
    """One judged case-trial as the review page shows it. ``verdict`` (pass or fail),
    ``score`` and ``rationale`` are the judge's: shown only once the page is unblinded."""

    case_id: str
    trial: int
    slice: str
    question: str
    reference: str
    outcome: str
    answer: str
    items: tuple[tuple[str, str, str], ...]
    verdict: str
    score: int | None
    rationale: str
    digest: str

    @property
    def key(self) -> tuple[str, int]:
        return (self.case_id, self.trial)


def _judged_by_model(info: RunInfo) -> bool:
    return any(g.get("name") == "judge" for g in info.graders)


def judged_run(reader: RunStore, ref: str) -> RunInfo:
    """The stored run ``ref`` names (a run id), or the latest completed run of suite
    ``ref`` that a model judge graded; refused when it was not judged."""
    try:
        info = reader.get_run(ref)
    except AssayInputError:
        if ref not in suite_names(reader):
            raise
        judged = [
            i for i in suite_runs(reader, ref) if i.status == "completed" and _judged_by_model(i)
        ]
        if not judged:
            raise AssayInputError(
                f"suite {ref!r} has no completed run graded by a model judge: nothing to review"
            ) from None
        return judged[-1]
    if not _judged_by_model(info):
        raise AssayInputError(f"run {info.id} was not graded by a model judge: nothing to review")
    return info


def judge_rubric(info: RunInfo) -> JudgeRubric:
    """The suite's rubric as the run's judge recorded it (an empty one when unreadable)."""
    judge = next((g for g in info.graders if g.get("name") == "judge"), {})
    rubric: Any = judge.get("rubric") or {}
    try:
        return JudgeRubric.model_validate(json.loads(rubric) if isinstance(rubric, str) else rubric)
    except (ValueError, ValidationError):
        return JudgeRubric()


def judged_answers(reader: RunStore, info: RunInfo) -> list[JudgedAnswer]:
    """Every case-trial of run ``info`` that its model judge passed or failed (not those it
    left ungraded), in report order."""
    report = report_for_run(reader, info.id)
    dataset = reader.load_dataset(info.id)
    base = judge_rubric(info)
    found = []
    for row in report.cases:
        if row.judge is None or row.status not in ("passed", "failed"):
            continue
        case = dataset.get(row.id)
        found.append(_answer(row, case, base))
    return found


def _answer(row: CaseRow, case: Case | None, base: JudgeRubric) -> JudgedAnswer:
    items = tuple(rubric_for(case, base).finding_ids()) if case is not None else ()
    question = row.question
    if case is not None and case.messages and not question:
        question = "\n".join(f"{m.role}: {m.content}" for m in case.messages)
    reference = row.expected_behavior + (f": {row.expected_fact}" if row.expected_fact else "")
    if case is not None and case.accepted_facts:
        reference += f" (also accepted: {', '.join(case.accepted_facts)})"
    answer = row_answer(row)
    return JudgedAnswer(
        case_id=row.id,
        trial=row.trial,
        slice=row.slice,
        question=question,
        reference=reference,
        outcome=row.outcome or "none recorded",
        answer=answer,
        items=items,
        verdict="pass" if row.status == "passed" else "fail",
        score=row.judge.score if row.judge is not None else None,
        rationale=row.reason,
        digest=answer_digest(row.outcome, answer),
    )
