"""``assay trend``: a suite's stored runs over time, with intervals and changes beyond noise."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, OUTPUT, STORE, format_option


def trend(
    suite: str = typer.Argument(
        ..., help="The suite's name (its `name:`, else its file name without extension)."
    ),
    metric: str = typer.Option(
        "task_success",
        "--metric",
        "-m",
        help="task_success, answer_coverage, answered_accuracy, SLICE.RATE (e.g. "
        "exception.task_success), cost_usd or latency_p95_s.",
    ),
    since: str | None = typer.Option(
        None, "--since", help="Only runs started in this period (30d, 12h, 2w) or since a date."
    ),
    format: str | None = format_option("trend"),
    output: Path | None = OUTPUT,
    links: str | None = typer.Option(
        None,
        "--links",
        help="HTML: link runs and comparisons to the viewer at this URL (e.g. "
        "http://127.0.0.1:8765); without it the page names the commands instead.",
    ),
    store: str | None = STORE,
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
) -> None:
    """One row per stored run of SUITE, oldest first: the metric with its interval, and
    the paired change from the previous run on the same dataset version, flagged when it is
    beyond noise (docs/trend.md)."""
    from datetime import UTC, datetime

    from assay.cli._options import interval_setting, output_format
    from assay.cli._output import check_output, emit
    from assay.formats import formats
    from assay.render import render
    from assay.runner import parse_since, trend_for_suite
    from assay.store import open_store
    from assay.trend import Metric

    format = output_format(format, output, formats("trend"))
    setting = interval_setting(confidence, interval)
    Metric.parse(metric)
    start = parse_since(since, datetime.now(UTC)) if since is not None else None
    if output is not None:
        check_output(output)
    opened = open_store(store, create=False)
    try:
        built = trend_for_suite(opened, suite, metric, since=start, interval=setting)
    finally:
        opened.close()
    emit(render(built, format, links=links), output)
