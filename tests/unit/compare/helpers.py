"""Building comparable runs from small in-memory datasets and outcomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.cases import Case, Dataset
from assay.compare import RunSide
from assay.grading import grade_all
from assay.outcomes import Abstain, Answer, Error, Outcome, Record
from assay.report import build_report


def case(cid: str, slice_: str = "s", revision: str | None = "r1", **extra: Any) -> Case:
    """An 'answer' case whose expected fact is ``f-<id>``."""
    return Case(
        id=cid,
        slice=slice_,
        question=f"question {cid}?",
        expected_behavior="answer",
        expected_fact=f"f-{cid}",
        source_revision=revision,
        **extra,
    )


def outcome(cid: str, status: str) -> Outcome | None:
    """An outcome that grades as ``status`` for ``case(cid)`` (None: missing)."""
    if status == "passed":
        return Answer(fact=f"f-{cid}")
    if status == "failed":
        return Abstain()
    if status == "error":
        return Error(message="boom")
    return None


def side(
    cases: Sequence[Case],
    statuses: Mapping[str, str | Sequence[str]],
    ref: str = "run",
    metadata: dict[str, Any] | None = None,
) -> RunSide:
    """A run over ``cases`` whose case-trials end in ``statuses`` (one or one per trial)."""
    records = []
    for cid, wanted in statuses.items():
        per_trial = [wanted] if isinstance(wanted, str) else list(wanted)
        for t, status in enumerate(per_trial, start=1):
            got = outcome(cid, status)
            if got is not None:
                records.append(Record(case_id=cid, trial=t, outcome=got))
    data = Dataset(name="tiny", cases=tuple(cases))
    trials = max((1 if isinstance(s, str) else len(s)) for s in statuses.values())
    graded = grade_all(data, records, trials=trials)
    return RunSide.from_report(build_report(data, graded, metadata=metadata), ref=ref)
