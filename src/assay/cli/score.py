"""``assay score``: score recorded results against a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL
from assay.cli._output import emit, wants_color

if TYPE_CHECKING:
    from assay.cases import Dataset
    from assay.grading import CaseResult
    from assay.outcomes import Results


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
    grader: Path | None = typer.Option(
        None,
        "--grader",
        help="Judge settings (YAML: base_url, model, rubric, …): grade free-text answers "
        "with a model against each case's rubric instead of the structured grader. A "
        "reply the judge cannot give properly makes the case ungraded, with the reason. "
        "See docs/judge.md.",
    ),
    product_selects_best: bool = typer.Option(
        False,
        "--product-selects-best",
        help="Declare that the product itself picks the best of several outputs: the only "
        "case in which pass@k (k > 1) measures it.",
    ),
) -> None:
    """Score RESULTS against DATASET with the structured grader (or the model judge of
    --grader) and print the report."""
    from assay.cli._options import check_confidence, check_format, check_method, check_policy
    from assay.cli._output import check_output
    from assay.load import load_dataset, load_results
    from assay.metrics import grade_all
    from assay.report import build_report
    from assay.report.render import render

    check_format(format)
    method = check_method(interval)
    check_confidence(confidence)
    if output is not None:
        check_output(output, (dataset, results))
    data = load_dataset(dataset)
    recorded = load_results(results)
    graded = _judged(data, recorded, grader) if grader is not None else grade_all(data, recorded)
    trials = max((r.trial for r in graded), default=1)
    policy = check_policy(trial_policy, trials, product_selects_best) if trial_policy else None
    report = build_report(data, graded, confidence=confidence, method=method, policy=policy)
    inputs = [p for p in (dataset, results, grader) if p is not None]
    emit(render(report, format, color=wants_color(output)), output, inputs)


def _judged(data: Dataset, recorded: Results, settings: Path) -> list[CaseResult]:
    """Every case-trial graded by the judge the settings file describes."""
    from assay.load import load_judge
    from assay.metrics import validate_inputs
    from assay.runner import judge_results

    judge = load_judge(settings).grader(data.sources)
    cases, checked = validate_inputs(data, recorded)
    return judge_results(cases, checked.records, judge)
