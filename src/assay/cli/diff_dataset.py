"""``assay diff-dataset``: what changed between two versions of a dataset, field by field."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import format_option


def diff_dataset(
    old: Path = typer.Argument(..., help="The earlier dataset file."),
    new: Path = typer.Argument(..., help="The later dataset file."),
    format: str = format_option("dataset-diff", from_output=False),
) -> None:
    """List added, removed and changed cases, naming each changed field and its kind:
    label (what counts as correct), wording, source, split or other.

    A score change between runs on OLD and NEW can be traced to the label changes listed.
    """
    from assay.cases import diff_datasets
    from assay.cli._options import check_format
    from assay.cli._output import emit
    from assay.formats import formats
    from assay.load import load_dataset
    from assay.render import render
    from assay.report import DatasetChanges, DatasetSide

    check_format(format, formats("dataset-diff"))
    before, after = load_dataset(old), load_dataset(new)
    changes = DatasetChanges(
        DatasetSide(str(old), before.version, len(before)),
        DatasetSide(str(new), after.version, len(after)),
        diff_datasets(before.cases, after.cases),
    )
    emit(render(changes, format), None)
