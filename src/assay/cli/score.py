"""``assay score``: score recorded results against a dataset."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL
from assay.cli._output import emit, wants_color


def score(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    results: Path = typer.Argument(..., help="Results file (JSONL): one outcome per line."),
    format: str = typer.Option(
        "text", "--format", "-f", help="text, json, markdown, html or junit."
    ),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the report to this file. An existing file is replaced only if it is "
        "an assay report; the dataset, the results or any other file are never overwritten.",
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    trial_policy: str | None = typer.Option(
        None,
        "--trial-policy",
        help="How several trials of a case combine: mean (default), majority, pass^k "
        "(all k pass) or pass@k (at least one of k; needs --product-selects-best).",
    ),
    product_selects_best: bool = typer.Option(
        False,
        "--product-selects-best",
        help="Declare that the product itself picks the best of several outputs: the only "
        "case in which pass@k (k > 1) measures it.",
    ),
) -> None:
    """Score RESULTS against DATASET with the structured grader and print the report."""
    from assay.cli._options import check_confidence, check_format, check_method, check_policy
    from assay.cli._output import check_output
    from assay.load import load_dataset, load_results
    from assay.metrics import grade_all
    from assay.report import build_report, summarize_usage
    from assay.report.render import render

    check_format(format)
    method = check_method(interval)
    check_confidence(confidence)
    if output is not None:
        check_output(output, (dataset, results))
    data = load_dataset(dataset)
    recorded = load_results(results)
    graded = grade_all(data, recorded)
    trials = max((r.trial for r in graded), default=1)
    policy = check_policy(trial_policy, trials, product_selects_best) if trial_policy else None
    records = [r for r in recorded.records]
    measured = any(r.usage is not None or r.latency_ms is not None for r in records)
    usage = summarize_usage(records) if measured else None  # none measured: no section
    report = build_report(
        data, graded, confidence=confidence, method=method, policy=policy, usage=usage
    )
    emit(render(report, format, color=wants_color(output)), output, (dataset, results))
