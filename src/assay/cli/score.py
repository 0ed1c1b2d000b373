"""``assay score``: score recorded results against a dataset."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import (
    CONFIDENCE,
    INTERVAL,
    PRODUCT_SELECTS_BEST,
    TRIAL_POLICY,
    format_option,
    report_output,
)
from assay.cli._output import described, emit, wants_color
from assay.errors import MAX_TRIALS

if TYPE_CHECKING:
    from assay.metrics import TrialPolicy


def score(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    results: Path = typer.Argument(..., help="Results file (JSONL): one outcome per line."),
    format: str | None = format_option("report"),
    output: Path | None = report_output("the dataset, the results or any other file"),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    trials: int | None = typer.Option(
        None,
        "--trials",
        min=1,
        max=MAX_TRIALS,
        help="How many trials every case ran (default: the highest trial recorded; at "
        f"most {MAX_TRIALS:,}, as a suite declares). Declared, a case with fewer recorded "
        "trials has the rest missing, and a result past it is an error.",
    ),
    grader: Path | None = typer.Option(
        None,
        "--grader",
        help="Judge settings (YAML: base_url, model, rubric, …): grade free-text answers "
        "with a model against each case's rubric instead of the structured grader. A "
        "reply the judge cannot give properly makes the case ungraded, with the reason. "
        "See docs/judge.md.",
    ),
    trial_policy: str | None = TRIAL_POLICY,
    product_selects_best: bool = PRODUCT_SELECTS_BEST,
) -> None:
    """Score RESULTS against DATASET with the structured grader (or the model judge of
    --grader) and print the report."""
    from assay.cli._options import interval_setting, output_format
    from assay.cli._output import check_output
    from assay.render import render_written
    from assay.scoring import score_files

    format = output_format(format, output, inputs=[p for p in (dataset, results, grader) if p])
    setting = interval_setting(confidence, interval)
    if output is not None:
        check_output(output, (dataset, results))
    policy = (
        functools.partial(_policy, trial_policy, product_selects_best) if trial_policy else None
    )
    with score_files(
        dataset,
        results,
        fmt=format,
        interval=setting,
        trials=trials,
        policy=policy,
        grader=grader,
        warn=_warn,
    ) as report:
        emit(
            render_written(report, format, color=wants_color(output)),
            output,
            [p for p in (dataset, results, grader) if p is not None],
            what=described(report, format, f"{results.name} against {dataset.name}"),
        )


def _policy(text: str, selects_best: bool, trials: int) -> TrialPolicy:
    from assay.cli._options import check_policy

    return check_policy(text, trials, selects_best)


def _warn(message: str) -> None:
    typer.echo(f"assay: {message}", err=True)
