"""``assay export``: a stored run's records, statuses and judgments in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import STORE, format_option
from assay.load import path_exists


def export(
    run_id: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    format: str = format_option("export", from_output=False),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file (required for parquet and inspect)."
    ),
    store: str | None = STORE,
) -> None:
    """Export a stored run: one row per case-trial with its status, reason, grader, score,
    outcome, usage and latency (missing case-trials included), or an inspect_ai .eval log
    that `assay import inspect` and inspect's own viewer read back."""
    from assay.cli._options import check_format
    from assay.cli._output import emit
    from assay.errors import AssayConfigError
    from assay.formats import formats
    from assay.interop import read_stored, to_csv, to_inspect, to_jsonl, to_parquet
    from assay.store import open_store

    check_format(format, formats("export"))
    if format in ("parquet", "inspect") and output is None:
        raise AssayConfigError(f"--format {format} writes a binary file: give --output FILE")
    if format == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise AssayConfigError(
                "--format parquet needs pyarrow: pip install 'assay[parquet]'"
            ) from None
    opened = open_store(store, create=False)
    try:
        run = read_stored(opened, run_id)
    finally:
        opened.close()
    if format == "jsonl":
        emit(to_jsonl(run), output)
    elif format == "csv":
        emit(to_csv(run), output)
    else:
        assert output is not None
        _write_new(output, to_parquet(run) if format == "parquet" else to_inspect(run))
        typer.echo(f"wrote {output} ({format}, {run.report.total} case-trials)")


def _write_new(output: Path, content: bytes) -> None:
    """Write ``content`` to ``output``, which must not exist: assay cannot tell a binary
    file it wrote from one a user keeps, so it replaces none."""
    from assay.errors import AssayConfigError

    if path_exists(output, "--output"):
        raise AssayConfigError(
            f"--output {output}: the file exists; assay never overwrites a file it cannot "
            "tell it wrote. Remove it or choose another name."
        )
    partial = output.with_name(f".{output.name}.partial")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(content)
        partial.replace(output)
    except OSError as err:  # a name too long, a read-only folder, a full disk
        partial.unlink(missing_ok=True)
        raise AssayConfigError(
            f"--output {output}: cannot be written: {err.strerror or err}"
        ) from None
