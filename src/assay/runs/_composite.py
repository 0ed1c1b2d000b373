"""A stored run's recorded outcomes as the inputs of composite scoring."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from assay.cases import Dataset
from assay.errors import AssayInputError
from assay.grading.checks import CompositeInputs, imported_checks
from assay.outcomes import Results
from assay.store import RunStore


@dataclass(frozen=True)
class StoredInputs:
    """What composite scoring reads from a stored run: the cases of the given dataset it
    ran, its recorded outcomes, its trial count and the dataset version it ran."""

    run_id: str
    dataset: Dataset
    inputs: CompositeInputs
    trials: int
    ran_version: str


def composite_inputs(store: RunStore, run_id: str, data: Dataset | None) -> StoredInputs:
    """Stored run ``run_id``'s outcomes and recorded checks to score against ``data`` (the
    run's own cases when None): an input error when the run ran cases ``data`` does not
    have."""
    info = store.get_run(run_id)
    own = store.load_dataset(info.id)
    records = tuple(store.records(info.id))
    inputs = CompositeInputs(Results(records, source=f"run {info.id}"), imported_checks(records))
    if data is None:
        return StoredInputs(info.id, own, inputs, info.trials, info.dataset_version)
    ran = set(own.ids)
    missing = sorted(ran - set(data.ids))
    if missing:
        raise AssayInputError(
            f"run {info.id} ran cases the dataset does not have: {', '.join(missing[:5])}"
        )
    chosen = dataclasses.replace(data, cases=tuple(c for c in data.cases if c.id in ran))
    return StoredInputs(info.id, chosen, inputs, info.trials, info.dataset_version)
