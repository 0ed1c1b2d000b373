"""A stored run's judge noise: when its model judge was asked several times about each
recorded answer, the judge's disagreement with itself apart from the system's."""

from __future__ import annotations

from assay.grading import Judgment
from assay.metrics import judge_noise
from assay.report import JUDGE_CACHE_HIT, Report, judge_usage
from assay.store import RunInfo, RunStore


def repeated_judge(info: RunInfo) -> dict[str, str] | None:
    """The run's grader entry when it asked its model judge more than once about each
    answer, else None."""
    for entry in info.graders:
        if str(entry.get("repeats", "1")).isdigit() and int(entry.get("repeats", "1")) > 1:
            return entry
    return None


def stored_repeats(store: RunStore, info: RunInfo) -> dict[tuple[str, int], list[Judgment]]:
    """Every kept repeat of the run's model judge, by (case id, trial), in repeat order;
    empty when the judge was asked once about each answer."""
    entry = repeated_judge(info)
    if entry is None:
        return {}
    return store.repeat_judgments(info.id, entry.get("name", ""), entry.get("version", ""))


def with_judge_noise(store: RunStore, report: Report, info: RunInfo | None = None) -> Report:
    """``report`` of a stored run with its judge noise (``Report.judge_noise``) when its
    judge was asked several times about each answer, and its judge usage counting every
    repeat's call; ``report`` as it is otherwise."""
    if report.judge_noise is not None or report.run_id is None:
        return report
    info = info if info is not None else store.get_run(report.run_id)
    entry = repeated_judge(info)
    if entry is None:
        return report
    name, version = entry.get("name", ""), entry.get("version", "")
    repeats = stored_repeats(store, info)
    if not repeats:
        return report
    verdicts = store.graders_judgments(info.id, name, version)
    cases = store.load_dataset(info.id).cases
    rule = entry.get("verdict", "first")
    noise = judge_noise(cases, info.trials, verdicts, repeats, rule)
    update: dict[str, object] = {"judge_noise": noise}
    if report.judge_usage is not None:
        # Every repeat was a call of its own; the verdict of several is none.
        calls = [
            [j.labels for j in repeats[key]] if key in repeats else [verdict.labels]
            for key, verdict in verdicts.items()
        ]
        update["judge_usage"] = judge_usage(
            [own for each in calls for own in each], JUDGE_CACHE_HIT
        )
    return report.model_copy(update=update)
