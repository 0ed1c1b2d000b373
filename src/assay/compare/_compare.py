"""Comparing two paired runs: what was fixed, what broke, and whether it is more than noise."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from assay.compare._divergence import Divergence, divergence
from assay.compare._model import (
    SideOutcome,
)
from assay.compare._pairing import ComparisonRefusedError, RunSide, pair_runs
from assay.compare._tally import SideFacts, tally_comparison
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.report import CaseRow

if TYPE_CHECKING:
    from assay.compare._model import Comparison


def classify(b: str, c: str) -> str:
    """'fixed', 'broken', 'moved' or 'unchanged' for a baseline → candidate status change.

    Only failed → passed is a fix and passed → failed a break; any other change involving
    error, missing or ungraded is a move (an error that became a failure is not a fix).
    """
    if b == c:
        return "unchanged"
    if (b, c) == ("failed", "passed"):
        return "fixed"
    if (b, c) == ("passed", "failed"):
        return "broken"
    return "moved"


def _judge_version(side: RunSide) -> str | None:
    graders = side.config.get("graders")
    if isinstance(graders, Mapping):
        found = graders.get("judge")
        return str(found) if found is not None else None
    return None


def check_same_judge(baseline: RunSide, candidate: RunSide) -> None:
    """Refuse a comparison whose sides were judged by different model judges (or only one
    of them by a judge): their statuses do not measure the same thing."""
    before, after = _judge_version(baseline), _judge_version(candidate)
    if before == after:
        return
    shown = [f"judge {before or '(none)'} vs {after or '(none)'}"]
    raise ComparisonRefusedError(
        shown,
        baseline.ref,
        candidate.ref,
        why="were not graded by the same judge (its model, prompt, rubric or grader "
        "version changed):",
        remedy="Regrade both with one judge (assay regrade), or pass --across-graders to "
        "compare anyway (the change is listed under configuration changes).",
    )


def compare_runs(
    baseline: RunSide,
    candidate: RunSide,
    *,
    matching_only: bool = False,
    across_graders: bool = False,
    interval: IntervalSetting = DEFAULT_INTERVAL,
) -> Comparison:
    """Pair the runs and report fixed, broken, moved and unchanged case-trials, the exact
    McNemar test, the task-success delta with its interval, per-slice deltas and the
    configuration diff.

    Raises ``ComparisonRefusedError`` when the case definitions differ, unless
    ``matching_only``, and when a model judge differs (model, prompt, rubric or grader
    version), unless ``across_graders``. Intervals are computed at ``interval``.
    """
    if not across_graders:
        check_same_judge(baseline, candidate)
    pairing = pair_runs(baseline, candidate, matching_only=matching_only)
    return tally_comparison(
        _facts(baseline),
        _facts(candidate),
        ((b.id, b.trial, b.slice, b.status, c.status, b, c) for b, c in pairing.pairs),
        pairing.excluded,
        _row_outcome,
        interval,
        _diverged,
    )


def _facts(side: RunSide) -> SideFacts:
    return SideFacts(
        ref=side.ref,
        run_id=side.run_id,
        dataset_name=side.dataset_name,
        dataset_version=side.dataset_version,
        trials=side.trials,
        config=side.config,
        usage=side.usage,
    )


def _diverged(baseline: CaseRow, candidate: CaseRow) -> Divergence | None:
    return divergence(baseline.trajectory, candidate.trajectory)


def _row_outcome(row: CaseRow, status: str) -> SideOutcome:
    return SideOutcome(status=status, outcome=row.outcome, fact=row.fact, reason=row.reason)
