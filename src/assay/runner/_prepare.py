"""A target made ready for the suite's dataset before a run, wherever the run's calls are
made (this process, a matrix's variants, a Ray actor)."""

from __future__ import annotations

import inspect
from typing import Any

from assay.cases import Dataset
from assay.targets import Target


def prepare_target(target: Target, dataset: Dataset, shared: dict[str, Any] | None = None) -> None:
    """Give the target the suite's dataset before the run (``use_dataset``): the
    ``openai`` target renders every case's prompt from it. ``shared``: what the targets of
    several runs on this dataset share (the variants of a matrix: prompts rendered once
    per prompt version), passed to a target whose ``use_dataset`` takes it."""
    use: Any = target.use_dataset
    if shared is not None and "shared" in inspect.signature(use).parameters:
        use(dataset, shared)
    else:
        use(dataset)
