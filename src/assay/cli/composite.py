"""``assay composite``: weigh checks per case with a profile whose critical checks veto."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import CONFIDENCE, FORMAT_FROM_OUTPUT, INTERVAL
from assay.cli._output import described, emit, wants_color

if TYPE_CHECKING:
    from assay.cases import Dataset, SourceLibrary
    from assay.grading.checks import CheckRegistry, CompositeInputs, Profile
    from assay.report._composite import InputKind


def composite(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    results: Path = typer.Argument(
        ...,
        help='Results file: free-text answers ({"id", "kind": "answer", "text", '
        '"citations"}; the checks run) and/or recorded check results ({"id", "checks": '
        '{"content_present": true, ...}}). Or the id of a stored run (see --store): its '
        "recorded answers are scored.",
    ),
    profile: Path | None = typer.Option(
        None,
        "--profile",
        "-p",
        help="Scoring profile (YAML): weights summing to 1, critical checks, threshold. "
        "Default: the built-in profile (threshold 0.85; critical content_present, "
        "content_absent).",
    ),
    sources: Path | None = typer.Option(
        None,
        "--sources",
        help="Source snapshots (YAML/JSON: revision -> section id -> text) for citation "
        "checks; added to any the dataset header names.",
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help="text, json, markdown or html " + FORMAT_FROM_OUTPUT + "."
    ),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the report to this file. An existing file is replaced only if it is "
        "an assay report; inputs and other files are never overwritten.",
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    store: str | None = typer.Option(
        None,
        "--store",
        help="Store URL, when RESULTS is a run id (default $ASSAY_STORE or "
        "sqlite:///.assay/assay.db).",
    ),
) -> None:
    """Score RESULTS against DATASET with weighted checks and critical vetoes; print the
    composite and strict verdicts per case, pass rates over real cases, per-check failure
    counts, the cases where the two verdicts diverge, and synthetic cases apart."""
    from assay.cli._options import check_confidence, check_method, output_format
    from assay.grading.checks import CompositeScorer, check_composite_inputs, composite_all
    from assay.load import check_registry, load_composite_results, names_a_file
    from assay.report import build_composite_report
    from assay.report.render.composite import COMPOSITE_FORMATS, render_composite

    named = [p for p in (dataset, results, profile, sources) if p is not None and names_a_file(p)]
    format = output_format(format, output, COMPOSITE_FORMATS, named)
    method = check_method(interval)
    check_confidence(confidence)
    registry = check_registry()
    chosen = _profile(profile, registry)
    data, library = _dataset(dataset, sources)
    trials = None
    if names_a_file(results):
        inputs = load_composite_results(results, chosen.checks)
    else:
        data, inputs, trials = _stored_run(str(results), data, store)
    check_composite_inputs(inputs, set(data.ids))
    scorer = CompositeScorer(chosen, registry.resolve(chosen.checks), library)
    scored = composite_all(data.cases, inputs, scorer, trials)
    report = build_composite_report(
        data,
        scored,
        chosen,
        input_kind=_input_kind(inputs),
        confidence=confidence,
        method=method,
        sources_version=library.version,
    )
    inputs_paths = [
        p for p in (dataset, results, profile, sources) if p is not None and names_a_file(p)
    ]
    emit(
        render_composite(report, format, color=wants_color(output)),
        output,
        inputs_paths,
        what=described(report, format, Path(str(results)).name).replace(
            f"{format} report", f"{format} composite report", 1
        ),
    )


def _profile(path: Path | None, registry: CheckRegistry) -> Profile:
    from assay.grading.checks import DEFAULT_PROFILE
    from assay.load import load_profile

    return load_profile(path, registry) if path is not None else DEFAULT_PROFILE


def _dataset(path: Path, sources: Path | None) -> tuple[Dataset, SourceLibrary]:
    from assay.load import load_dataset, load_sources, merge_sources

    data = load_dataset(path)
    library = data.sources
    if sources is not None:
        library = merge_sources(library, load_sources(sources))
    return data, library


def _stored_run(
    run_id: str, data: Dataset, store_url: str | None
) -> tuple[Dataset, CompositeInputs, int]:
    """The recorded outcomes of a stored run, and the cases of ``data`` it ran."""
    import dataclasses

    from assay.errors import AssayInputError
    from assay.grading.checks import CompositeInputs
    from assay.outcomes import Results
    from assay.store import open_store

    if Path(run_id).suffix or len(Path(run_id).parts) > 1:
        raise AssayInputError(f"{run_id}: no such results file")
    runs = open_store(store_url, create=False)
    try:
        info = runs.get_run(run_id)
        ran = set(runs.load_dataset(info.id).ids)
        records = tuple(runs.records(info.id))
    finally:
        runs.close()
    missing = sorted(ran - set(data.ids))
    if missing:
        raise AssayInputError(
            f"run {info.id} ran cases the dataset does not have: {', '.join(missing[:5])}"
        )
    chosen = dataclasses.replace(data, cases=tuple(c for c in data.cases if c.id in ran))
    if chosen.version != info.dataset_version:
        typer.echo(
            f"note: run {info.id} ran dataset version {info.dataset_version}; its answers "
            f"are scored against {data.name} version {chosen.version}",
            err=True,
        )
    return chosen, CompositeInputs(Results(records, source=f"run {info.id}")), info.trials


def _input_kind(inputs: CompositeInputs) -> InputKind:
    if not inputs.recorded:
        return "free-text answers"
    return "recorded checks" if not inputs.records.records else "mixed"
