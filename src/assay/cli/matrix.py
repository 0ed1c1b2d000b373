"""``assay matrix``: every variant of a matrix side by side, and every pair compared."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, STORE, format_option


def matrix(
    matrix_id: str = typer.Argument(..., help="A matrix id (mx-…) or a unique prefix of one."),
    format: str | None = format_option("matrix"),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here."),
    store: str | None = STORE,
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
) -> None:
    """Show matrix MATRIX_ID: one row per variant (task success, answer coverage, answered
    accuracy with exact intervals, statuses, usage, cache), task success per slice, and
    every pair of variants compared (newly fixed and broken, exact McNemar p-value, Holm's
    adjustment across all pairs, the paired difference with its interval)."""
    from assay.cli._options import interval_setting, output_format
    from assay.cli._output import emit
    from assay.formats import formats
    from assay.render import render
    from assay.runner import matrix_report
    from assay.store import open_store

    format = output_format(format, output, formats("matrix"))
    setting = interval_setting(confidence, interval)
    runs = open_store(store, create=False)
    try:
        report = matrix_report(runs, matrix_id, interval=setting)
    finally:
        runs.close()
    emit(render(report, format), output)
