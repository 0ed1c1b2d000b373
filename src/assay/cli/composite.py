"""``assay composite``: weigh checks per case with a profile whose critical checks veto."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, format_option, report_output, store_option
from assay.cli._output import described, emit, wants_color

if TYPE_CHECKING:
    from assay.cases import Dataset, SourceLibrary
    from assay.grading.checks import CheckRegistry, CheckResult, CompositeInputs, Profile
    from assay.grading.judge import JudgeGrader
    from assay.report._composite import InputKind


def composite(
    dataset: Path = typer.Argument(
        ...,
        help="Dataset file (JSONL, YAML, JSON or CSV); or, alone, the id of a stored run "
        "scored over its own cases (e.g. an imported promptfoo run, whose assertions are "
        "recorded checks).",
    ),
    results: Path | None = typer.Argument(
        None,
        help='Results file: free-text answers ({"id", "kind": "answer", "text", '
        '"citations"}; the checks run) and/or recorded check results ({"id", "checks": '
        '{"content_present": true, ...}}). Or the id of a stored run (see --store): its '
        "recorded answers are scored, and the checks it recorded are weighed.",
    ),
    profile: Path | None = typer.Option(
        None,
        "--profile",
        "-p",
        help="Scoring profile (YAML): weights summing to 1, critical checks, threshold; it "
        "may weigh a stored run's recorded checks by name. Or a built-in profile's name "
        "(default, agent) when no file has that name. Default: the built-in profile "
        "(threshold 0.85; critical content_present, content_absent), or for a run with "
        "recorded checks, each of them weighed alike and all required.",
    ),
    sources: Path | None = typer.Option(
        None,
        "--sources",
        help="Source snapshots (YAML/JSON: revision -> section id -> text) for citation "
        "checks; added to any the dataset header names.",
    ),
    format: str | None = format_option("composite"),
    output: Path | None = report_output("inputs and other files"),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    store: str | None = store_option("RESULTS"),
    grader: Path | None = typer.Option(
        None,
        "--grader",
        help="Judge settings (YAML: base_url, model, rubric, …): a model judges every "
        "free-text answer, and its verdict is the check 'judge' (critical with weight 0 "
        "unless the profile weighs it; docs/composite.md).",
    ),
) -> None:
    """Score RESULTS against DATASET with weighted checks and critical vetoes; print the
    composite and strict verdicts per case, pass rates over real cases, per-check failure
    counts, the cases where the two verdicts diverge, and synthetic cases apart."""
    from assay.cli._options import interval_setting, output_format
    from assay.formats import formats
    from assay.grading.checks import CompositeScorer, check_composite_inputs, composite_all
    from assay.load import check_registry, load_composite_results, names_a_file
    from assay.render import render
    from assay.report import build_composite_report

    named = [p for p in (dataset, results, profile, sources) if p is not None and names_a_file(p)]
    format = output_format(format, output, formats("composite"), named)
    setting = interval_setting(confidence, interval)
    registry = check_registry()
    from assay.errors import AssayInputError
    from assay.grading.checks import CompositeInputs
    from assay.outcomes import Results

    trials = None
    inputs = CompositeInputs(Results(()))
    if results is None:
        if names_a_file(dataset) or dataset.suffix or len(dataset.parts) > 1:
            found = "" if names_a_file(dataset) else "no such file; "
            raise AssayInputError(
                f"{dataset}: {found}give RESULTS too (a results file or a stored run id), "
                "or give a stored run's id alone"
            )
        data, inputs, trials = _stored_run(str(dataset), None, store)
        library = _library(data, sources)
    else:
        data, library = _dataset(dataset, sources)
        if not names_a_file(results):
            data, inputs, trials = _stored_run(str(results), data, store)
    judge = None
    if grader is not None:
        from assay.grading.checks import JUDGE_CHECKS, judge_not_supplied
        from assay.load import load_judge

        judge = load_judge(grader).grader(library)
        registry = registry.with_checks(dict.fromkeys(JUDGE_CHECKS, judge_not_supplied))
    recorded = list(dict.fromkeys(n for r in inputs.recorded for n in r.checks))
    chosen = _profile(profile, registry, recorded)
    if judge is not None:
        from assay.grading.checks import judge_check_names, with_judge

        rubric = judge.rubric
        chosen = with_judge(chosen, judge_check_names(rubric.groundedness, rubric.citations))
    if results is not None and names_a_file(results):
        inputs = load_composite_results(results, chosen.checks)
        check_composite_inputs(inputs, set(data.ids))
    computed = [n for n in chosen.checks if n in registry or n not in recorded]
    scorer = CompositeScorer(
        chosen, registry.resolve(computed), library, recorded_only=set(recorded)
    )
    given = _judged(data, inputs, judge, chosen) if judge is not None else None
    scored = composite_all(data.cases, inputs, scorer, trials, given)
    report = build_composite_report(
        data,
        scored,
        chosen,
        input_kind=_input_kind(inputs),
        interval=setting,
        sources_version=library.version,
    )
    if judge is not None:
        identity = {k: str(v) for k, v in judge.identity().items()}
        report = report.model_copy(
            update={
                "metadata": {
                    **report.metadata,
                    "judge": {"grader": f"judge v{judge.version}", **identity},
                }
            }
        )
    inputs_paths = [
        p for p in (dataset, results, profile, sources, grader) if p is not None and names_a_file(p)
    ]
    emit(
        render(report, format, color=wants_color(output)),
        output,
        inputs_paths,
        what=described(report, format, Path(str(results)).name).replace(
            f"{format} report", f"{format} composite report", 1
        ),
    )


def _judged(
    data: Dataset, inputs: CompositeInputs, judge: JudgeGrader, profile: Profile
) -> dict[tuple[str, int], dict[str, CheckResult]]:
    """The judge checks of every recorded answer (calls the judge's model)."""
    import asyncio

    from assay.grading.checks import JUDGE_CHECKS, judge_check_results
    from assay.outcomes import Error
    from assay.runner import JudgeRunner, judge_all

    names = [n for n in profile.checks if n in JUDGE_CHECKS]
    by_id = {c.id: c for c in data.cases}
    items = [
        (by_id[r.case_id], r)
        for r in inputs.records.records
        if r.case_id in by_id and not isinstance(r.outcome, Error)
    ]
    if not items:
        return {}
    judgments = asyncio.run(judge_all(JudgeRunner(judge), items))
    return {(j.case_id, j.trial): judge_check_results(j, names) for j in judgments}


def _profile(path: Path | None, registry: CheckRegistry, recorded: list[str]) -> Profile:
    from assay.grading.checks import DEFAULT_PROFILE, make_profile
    from assay.load import load_profile

    if path is not None:
        return load_profile(path, registry, recorded)
    if not recorded:
        return DEFAULT_PROFILE
    typer.echo(
        f"note: no --profile: the run's {len(recorded)} recorded checks weigh alike and "
        "every check a case was given must pass; give --profile to re-weigh them",
        err=True,
    )
    weights = {name: 1 / len(recorded) for name in recorded}
    return make_profile({"name": "recorded-checks", "weights": weights, "threshold": 1.0}, recorded)


def _library(data: Dataset, sources: Path | None) -> SourceLibrary:
    from assay.load import load_sources, merge_sources

    if sources is None:
        return data.sources
    return merge_sources(data.sources, load_sources(sources))


def _dataset(path: Path, sources: Path | None) -> tuple[Dataset, SourceLibrary]:
    from assay.load import load_dataset

    data = load_dataset(path)
    return data, _library(data, sources)


def _stored_run(
    run_id: str, data: Dataset | None, store_url: str | None
) -> tuple[Dataset, CompositeInputs, int]:
    """The recorded outcomes and checks of a stored run, and the cases of ``data`` it ran
    (its own cases when ``data`` is None)."""
    from assay.errors import AssayInputError
    from assay.runs import composite_inputs
    from assay.store import open_store

    if Path(run_id).suffix or len(Path(run_id).parts) > 1:
        raise AssayInputError(f"{run_id}: no such results file")
    runs = open_store(store_url, create=False)
    try:
        stored = composite_inputs(runs, run_id, data)
    finally:
        runs.close()
    if stored.dataset.version != stored.ran_version:
        typer.echo(
            f"note: run {stored.run_id} ran dataset version {stored.ran_version}; its answers "
            f"are scored against {stored.dataset.name} version {stored.dataset.version}",
            err=True,
        )
    return stored.dataset, stored.inputs, stored.trials


def _input_kind(inputs: CompositeInputs) -> InputKind:
    if not inputs.recorded:
        return "free-text answers"
    return "recorded checks" if not inputs.records.records else "mixed"
