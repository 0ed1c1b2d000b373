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
    import json

    from assay.cases import diff_datasets, diff_json, diff_lines
    from assay.cli._options import check_format
    from assay.formats import formats
    from assay.load import load_dataset

    check_format(format, formats("dataset-diff"))
    before, after = load_dataset(old), load_dataset(new)
    diff = diff_datasets(before.cases, after.cases)
    if format == "json":
        body = {
            "old": {"path": str(old), "version": before.version, "cases": len(before)},
            "new": {"path": str(new), "version": after.version, "cases": len(after)},
            **diff_json(diff),
        }
        typer.echo(json.dumps(body, indent=2, ensure_ascii=False))
        return
    typer.echo(
        f"assay diff-dataset · {old} ({before.version[:19]}) -> {new} ({after.version[:19]})"
    )
    for line in diff_lines(diff):
        typer.echo(line)
