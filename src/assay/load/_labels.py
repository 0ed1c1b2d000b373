"""Human labels for calibration, and the judged rows to compare them with (a JSON report
file or a stored run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay._validation import parse_located, problems_from
from assay.errors import AssayInputError, Location, Problem
from assay.load._records import read_records
from assay.report import (
    HumanLabel,
    JudgedRow,
    Report,
    answer_digest,
    row_answer,
)


def load_labels(path: str | Path) -> list[HumanLabel]:
    """Human labels (JSONL, JSON, YAML or CSV: ``id``, optional ``trial``, ``human_score``
    0–2 or ``human`` pass/fail, ``reviewer``, ``note``); every problem named with file,
    line and field. A later label of the same case-trial by the same reviewer supersedes
    the earlier one (a review page appends; it never rewrites)."""
    labels = read_labels(path)
    if not labels:
        raise AssayInputError(f"{path}: no labels")
    return labels


def read_labels(path: str | Path, allow_empty: bool = False) -> list[HumanLabel]:
    """``load_labels``, with an empty file (``allow_empty``) giving no labels."""
    p = Path(path)
    records, _ = read_records(p, "labels", allow_empty=allow_empty)
    kept: dict[tuple[str, int | None], tuple[HumanLabel, Location]] = {}

    def label(data: Any, where: Location) -> HumanLabel | list[Problem]:
        if isinstance(data, dict) and data.get("human_score") in ("", None):
            data = {k: v for k, v in data.items() if k != "human_score"}
        if isinstance(data, dict) and isinstance(data.get("human_score"), str):
            text = data["human_score"].strip()
            data = {**data, "human_score": int(text) if text.isdigit() else text}
        try:
            found = HumanLabel.model_validate(data)
        except ValidationError as err:
            return problems_from(err, where, HumanLabel)
        for (case_id, trial), (earlier, at) in list(kept.items()):
            if case_id != found.id or (None not in (trial, found.trial) and trial != found.trial):
                continue
            if trial == found.trial and earlier.reviewer and earlier.reviewer == found.reviewer:
                del kept[(case_id, trial)]  # relabelled: the later label supersedes
                continue
            by = f" by {earlier.reviewer}" if earlier.reviewer else ""
            return [Problem(f'id "{found.id}" is labelled twice (first at {at}{by})', where, "id")]
        kept[(found.id, found.trial)] = (found, where)
        return found

    parse_located(records, label, f"{p}: invalid labels")
    return [found for found, _ in kept.values()]


def rows_from_report(report: Report) -> list[JudgedRow]:
    """The judged rows of a report: status, reason and any judge score per case-trial."""
    return [
        JudgedRow(
            id=row.id,
            trial=row.trial,
            slice=row.slice,
            status=row.status,
            reason=row.reason,
            score=row.judge.score if row.judge is not None else None,
            answer=answer_digest(row.outcome, row_answer(row)),
        )
        for row in report.cases
    ]


def judged_identity(report: Report) -> dict[str, str]:
    """The judge model, prompt version and pass minimum the report's judgments record,
    when they agree."""
    found: dict[str, set[str]] = {"judge_model": set(), "prompt_version": set()}
    found["pass_minimum"] = set()
    for row in report.cases:
        for label in row.judge.labels if row.judge is not None else ():
            key, _, value = label.partition("=")
            if key in found:
                found[key].add(value)
    return {k: next(iter(v)) for k, v in found.items() if len(v) == 1}
