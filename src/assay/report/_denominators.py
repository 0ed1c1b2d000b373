"""The denominators of a report's rates named for a run that did not run every case (a
budget cut it short, or a sequential test stopped it)."""

from __future__ import annotations

from typing import Any


def name_denominators(figures: dict[str, Any], whole: str, of_slice: str) -> dict[str, Any]:
    """The fields of a report (``figures``: its ``task_success``, ``answer_coverage``,
    ``slices`` and ``trial_summary``) with each rate's denominator named ``whole``, and a
    slice's ``of_slice``."""
    named: dict[str, Any] = {}
    for key in ("task_success", "answer_coverage"):
        named[key] = figures[key].model_copy(update={"denominator_name": whole})
    named["slices"] = {
        name: summary.model_copy(
            update={
                "task_success": summary.task_success.model_copy(
                    update={"denominator_name": of_slice}
                )
            }
        )
        for name, summary in figures["slices"].items()
    }
    trials = figures.get("trial_summary")
    if trials is not None:
        rate = trials.task_success.model_copy(update={"denominator_name": whole})
        named["trial_summary"] = trials.model_copy(update={"task_success": rate})
    return named
