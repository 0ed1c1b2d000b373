"""Reading one stored run's cases, outcomes, judgments and spans for trace and diagnose."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.cases import Case, Dataset
from assay.diagnose import diagnose
from assay.errors import AssayInputError, did_you_mean
from assay.grading import Judgment, rule_judgment
from assay.outcomes import Record, Span

if TYPE_CHECKING:
    from assay.diagnose import Finding
    from assay.store import RunStore


@dataclass(frozen=True)
class StoredRun:
    """A stored run's cases, records and judgments, keyed by (case id, trial)."""

    run_id: str
    trials: int
    dataset: Dataset
    records: dict[tuple[str, int], Record]
    judgments: dict[tuple[str, int], Judgment]

    @classmethod
    def read(cls, store: RunStore, run_id: str) -> StoredRun:
        info = store.get_run(run_id)
        return cls(
            info.id,
            info.trials,
            store.load_dataset(info.id),
            {r.key: r for r in store.records(info.id)},
            {(j.case_id, j.trial): j for j in store.judgments(info.id)},
        )

    def case(self, case_id: str) -> Case:
        """The case with this id; an unknown id is an input error with a suggestion."""
        found = self.dataset.get(case_id)
        if found is None:
            raise AssayInputError(
                f"run {self.run_id} has no case {case_id!r}"
                f"{did_you_mean(case_id, list(self.dataset.ids))}"
            )
        return found

    def check_trial(self, trial: int) -> int:
        if not 1 <= trial <= self.trials:
            raise AssayInputError(
                f"--trial {trial}: run {self.run_id} has trials 1 to {self.trials}"
            )
        return trial

    def no_spans(self, case: Case, trial: int, run_traced: bool) -> str:
        """Why a case-trial has no spans to show, and what to do about it."""
        where = f"{case.id} (trial {trial})"
        if (case.id, trial) not in self.records:
            return (
                f"run {self.run_id} has no recorded outcome for {where}, so no spans: "
                f"the run stopped before it (assay run --resume {self.run_id} finishes it)"
            )
        if not run_traced:
            return (
                f"run {self.run_id} recorded no spans at all: it ran with tracing off "
                "(--no-trace, or trace: false in its suite); run the suite again with "
                f"tracing on (the default) to see the spans of {where}"
            )
        return f"run {self.run_id} recorded spans for other case-trials, but none for {where}"

    def judgment(self, case: Case, trial: int) -> Judgment | None:
        """The stored judgment; an error outcome is judged ``error`` without a grader."""
        found = self.judgments.get((case.id, trial))
        record = self.records.get((case.id, trial))
        if found is None and record is not None:
            return rule_judgment(case.id, trial, record)
        return found

    def diagnose(self, case: Case, trial: int, spans: list[Span]) -> Finding:
        record = self.records.get((case.id, trial))
        return diagnose(case, record, self.judgment(case, trial), spans)
