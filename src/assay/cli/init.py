"""``assay init``: write a commented starter suite, dataset and target that run as they are."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.load import path_exists


def init(
    directory: Path = typer.Argument(Path("."), help="Where to write the starter files."),
) -> None:
    """Write suite.yaml, dataset.jsonl and assistant.py into DIRECTORY (existing files are
    never overwritten), ready for `assay run DIRECTORY/suite.yaml`."""
    from assay.cli._starter import FILES
    from assay.errors import AssayConfigError

    if path_exists(directory, "DIRECTORY") and not directory.is_dir():
        raise AssayConfigError(f"{directory}: exists and is not a directory")
    written, kept = [], []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, text in FILES.items():
            path = directory / name
            if path_exists(path, "DIRECTORY"):
                kept.append(str(path))
                continue
            path.write_text(text, encoding="utf-8")
            written.append(str(path))
    except OSError as err:  # a read-only folder, a full disk
        raise AssayConfigError(
            f"DIRECTORY {directory}: cannot be written: {err.strerror or err}"
        ) from None
    for path_text in written:
        typer.echo(f"wrote {path_text}")
    for path_text in kept:
        typer.echo(f"kept {path_text} (exists; not overwritten)", err=True)
    typer.echo(f"next: assay run {directory / 'suite.yaml'}")
