"""A judge asked several times about the same recorded answer: where each repeat's judgment
is kept, and the one verdict a case-trial is counted under (the first repeat's, or the
majority of the repeats').

Every repeat is kept under its own grader name (``judge#1`` … ``judge#J``), beside the
verdict under the grader's own name, which is the only judgment any figure counts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from assay.grading._judgment import Judgment

RepeatVerdict = Literal["first", "majority"]
"""How a case-trial judged several times gets its verdict: the first repeat's, or the
status more than half of the repeats gave (else ``ungraded``, with the reason)."""
MAX_REPEATS = 25
"""The most times a judge may be asked about one answer."""

_REPEAT_NAME = re.compile(r"(?P<grader>.+)#(?P<index>[1-9][0-9]*)")
REPEAT_LABEL = "judge_repeat"
VOTES_LABEL = "judge_votes"


def repeat_grader(grader: str, index: int) -> str:
    """The grader name repeat ``index`` (from 1) of ``grader``'s judgment is kept under."""
    return f"{grader}#{index}"


def repeat_of(name: str) -> tuple[str, int] | None:
    """The grader and the repeat index a kept repeat's grader name stands for, or None
    when ``name`` names a grader itself."""
    found = _REPEAT_NAME.fullmatch(name)
    return None if found is None else (found["grader"], int(found["index"]))


def kept_repeats(repeats: Sequence[Judgment]) -> list[Judgment]:
    """The repeats of one case-trial as they are kept: each under its repeat's grader name,
    labelled with its index and the number of repeats."""
    total = len(repeats)
    return [
        j.model_copy(
            update={
                "grader": repeat_grader(j.grader, i),
                "labels": (*j.labels, f"{REPEAT_LABEL}={i}/{total}"),
            }
        )
        for i, j in enumerate(repeats, 1)
    ]


def votes_text(counts: Counter[str], total: int) -> str:
    """'3 passed, 1 failed, 1 ungraded of 5' (statuses in the order passed, failed, other)."""
    order = ["passed", "failed", *sorted(k for k in counts if k not in ("passed", "failed"))]
    shown = ", ".join(f"{counts[k]} {k}" for k in order if counts[k])
    return f"{shown} of {total}"


def repeat_verdict(repeats: Sequence[Judgment], verdict: RepeatVerdict) -> Judgment:
    """The judgment a case-trial judged ``len(repeats)`` times is counted under.

    ``first``: the first repeat's. ``majority``: the first repeat that gave the status more
    than half of the repeats gave, passed or failed; when no status has such a majority the
    case-trial is ``ungraded``: "judges tied 2–2" when as many passed as failed, else the
    votes. A tie is never a pass."""
    if not repeats:
        raise ValueError("no judgment to take a verdict from")
    first = repeats[0]
    if verdict == "first" or len(repeats) == 1:
        return first
    counts: Counter[str] = Counter(j.status for j in repeats)
    total = len(repeats)
    votes = f"{VOTES_LABEL}={counts['passed']}/{counts['failed']}/{total}"
    for status in ("passed", "failed"):
        if counts[status] * 2 > total:
            chosen = next(j for j in repeats if j.status == status)
            return chosen.model_copy(
                update={
                    "reason": f"majority of {total} judges ({votes_text(counts, total)}): "
                    f"{chosen.reason}",
                    "labels": (*chosen.labels, votes),
                }
            )
    if counts["passed"] == counts["failed"] and counts["passed"]:
        why = f"judges tied {counts['passed']}\u2013{counts['failed']}"
        if counts["passed"] * 2 < total:
            why += f" ({votes_text(counts, total)})"
    else:
        why = f"no majority of {total} judges: {votes_text(counts, total)}"
    return first.model_copy(
        update={
            "status": "ungraded",
            "reason": why,
            "score": None,
            "labels": (*(x for x in first.labels if not x.startswith("judge_score=")), votes),
        }
    )
