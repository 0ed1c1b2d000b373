"""``assay validate``: every problem with a dataset at once, each located, each with a fix."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._dataset import SHINGLE, THRESHOLD
from assay.cli._flags import format_option


def validate(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    sources: Path | None = typer.Option(
        None, "--sources", help="Source snapshots: check revisions and required facts."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Missing rationale is an error; any warning exits 1."
    ),
    format: str = format_option("validation", from_output=False),
    shingle: int = SHINGLE,
    threshold: float = THRESHOLD,
) -> None:
    """Check DATASET: schema, duplicate ids, exact and near-duplicate inputs, source
    revisions, unsupported facts, rationale, unflagged synthetic cases, conflicting labels,
    split leakage and unreviewed candidates.

    Exit 0 when clean (warnings allowed), 1 with warnings under --strict, 2 on errors.
    On a terminal, a large dataset (1,000 cases or more) shows a progress bar on stderr.
    """
    from assay.cli._dataset import near_settings, progress_sized_later
    from assay.cli._options import check_format
    from assay.cli._output import emit
    from assay.formats import formats
    from assay.load import lint_file
    from assay.render import render
    from assay.report import Validation

    check_format(format, formats("validation"))
    near = near_settings(shingle, threshold)
    with progress_sized_later("validate") as bar:
        result = lint_file(dataset, sources, strict, near, progress=bar, sized=bar.size)
    found = Validation(
        str(dataset),
        len(result.cases),
        result.errors,
        result.warnings,
        strict,
        tuple(result.findings),
    )
    emit(render(found, format), None)
    if result.errors:
        raise typer.Exit(2)
    if strict and result.warnings:
        raise typer.Exit(1)
