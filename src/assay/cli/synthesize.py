"""``assay synthesize``: build clearly labelled synthetic cases from real ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay.load import path_exists

if TYPE_CHECKING:
    from assay.cases import Case, Dataset
    from assay.grading.checks import CheckResult, RecordedChecks

app = typer.Typer(
    name="synthesize",
    help="Build synthetic cases (flagged synthetic, never in real totals) from real ones.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.command("flip-check")
def flip_check(
    dataset: Path = typer.Argument(..., help="Dataset file holding the real case."),
    results: Path = typer.Argument(
        ..., help="Results file: recorded check results or free-text answers (checks run)."
    ),
    source_case: str = typer.Option(..., "--from", help="The real case to copy."),
    check: str = typer.Option(..., "--check", help="The one check to flip."),
    new_id: str | None = typer.Option(None, "--id", help="Id of the new case."),
    output_dir: Path | None = typer.Option(
        None,
        "--output-dir",
        help="Write <dataset>.synthetic.jsonl (.yaml when the dataset header names a "
        "sources file) and <results>.synthetic.jsonl here (the inputs plus the new case); "
        "refuses to replace existing files.",
    ),
    profile: Path | None = typer.Option(None, "--profile", help="Profile, for free text."),
    sources: Path | None = typer.Option(None, "--sources", help="Source snapshots."),
) -> None:
    """Copy case --from and its check results, flipping exactly the check --check.

    The new case is synthetic: true, records its provenance (source case, flipped check)
    and is reported under SYNTHETIC — NOT A REAL RUN. Without --output-dir two JSON lines
    go to stdout: first the case (for the dataset), then its checks (for the results).
    """
    from assay.grading.checks import flip_check as flip

    data = _load_dataset(dataset, sources)
    case = data.get(source_case)
    if case is None:
        from assay.errors import AssayInputError, did_you_mean

        hint = did_you_mean(source_case, data.ids)
        raise AssayInputError(f"--from {source_case}: no such case in {dataset}{hint}")
    checks = _source_checks(case, data, results, profile)
    new_case, recorded = flip(case, checks, check, new_id=new_id)
    if data.get(new_case.id) is not None:
        from assay.errors import AssayInputError

        raise AssayInputError(f"{dataset} already has a case {new_case.id}; choose --id")
    case_line, checks_line = _case_line(new_case), _checks_line(recorded)
    if output_dir is None:
        typer.echo(json.dumps(case_line, ensure_ascii=False))
        typer.echo(json.dumps(checks_line, ensure_ascii=False))
        return
    _write_beside(output_dir, dataset, results, data, case_line, checks_line)
    if sources is not None:
        typer.echo(
            f"note: --sources {sources} is not written into the copies; pass it again when "
            "scoring them",
            err=True,
        )


def _load_dataset(path: Path, sources: Path | None) -> Dataset:
    import dataclasses

    from assay.load import load_dataset, load_sources, merge_sources

    data = load_dataset(path)
    if sources is not None:
        merged = merge_sources(data.sources, load_sources(sources))
        data = dataclasses.replace(data, sources=merged)
    return data


def _source_checks(
    case: Case, data: Dataset, results: Path, profile: Path | None
) -> dict[str, CheckResult]:
    """The source case's check results: as recorded, or by running the profile's checks."""
    from assay.errors import AssayInputError
    from assay.grading.checks import DEFAULT_PROFILE, CompositeScorer, check_composite_inputs
    from assay.load import check_registry, load_composite_results, load_profile

    registry = check_registry()
    chosen = load_profile(profile, registry) if profile is not None else DEFAULT_PROFILE
    inputs = load_composite_results(results, registry.names)
    check_composite_inputs(inputs, set(data.ids))
    for recorded in inputs.recorded:
        if recorded.key == (case.id, 1):
            return dict(recorded.checks)
    for record in inputs.records.records:
        if record.key == (case.id, 1):
            if record.outcome.kind == "error":
                raise AssayInputError(f"{case.id}: the recorded outcome is an error; no checks")
            scorer = CompositeScorer(chosen, registry.resolve(chosen.checks), data.sources)
            return scorer.run_checks(case, record)
    raise AssayInputError(f"{results}: no recorded result for {case.id} (trial 1)")


def _case_line(case: Case) -> dict[str, Any]:
    return case.model_dump(mode="json", exclude_defaults=True)


def _checks_line(recorded: RecordedChecks) -> dict[str, Any]:
    from assay.grading.checks import check_line_value

    checks = {n: check_line_value(r) for n, r in recorded.checks.items()}
    return {"id": recorded.case_id, "checks": checks}


def _sources_header(dataset: Path, out: Path) -> str | None:
    """The dataset header's sources file, as a path relative to ``out`` (None: no header)."""
    import os

    from assay.load import read_records

    _, header = read_records(dataset, "cases")
    value = header.get("sources") if dataset.suffix.lower() != ".csv" else None
    if not isinstance(value, str):
        return None
    if Path(value).is_absolute():
        return value
    target = (dataset.parent / value).resolve()
    try:
        return Path(os.path.relpath(target, out.resolve())).as_posix()
    except ValueError:  # another drive: no relative path exists
        return str(target)


def _dataset_text(name: str, sources: str | None, cases: list[dict[str, Any]]) -> str:
    """JSONL, or a YAML dataset whose header names the sources file (JSONL has no header)."""
    if sources is None:
        return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
    import yaml

    header = "# The cases of the real dataset, then one synthetic case (assay synthesize).\n"
    body = {"name": name, "sources": sources, "cases": cases}
    return header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=100)


def _write_beside(
    out: Path,
    dataset: Path,
    results: Path,
    data: Dataset,
    case_line: dict[str, Any],
    checks_line: dict[str, Any],
) -> None:
    from assay.errors import AssayConfigError
    from assay.load import read_records

    sources = _sources_header(dataset, out)
    suffix = ".jsonl" if sources is None else ".yaml"
    targets = (out / f"{dataset.stem}.synthetic{suffix}", out / f"{results.stem}.synthetic.jsonl")
    for target in targets:
        if path_exists(target, "--output-dir"):
            raise AssayConfigError(
                f"--output-dir {out}: {target.name} exists; assay never replaces a file "
                "you have. Remove it or choose another directory."
            )
    result_lines, _ = read_records(results, "results")
    cases = [_case_line(c) for c in data.cases] + [case_line]
    lines = [raw for _, raw in result_lines] + [checks_line]
    texts = (
        _dataset_text(f"{data.name}.synthetic", sources, cases),
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines),
    )
    counts = (f"{len(cases)} cases", f"{len(lines)} lines")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for target, text, count in zip(targets, texts, counts, strict=True):
            target.write_text(text, encoding="utf-8")
            typer.echo(f"wrote {target} ({count})", err=True)
    except OSError as err:  # a read-only folder, a full disk
        raise AssayConfigError(
            f"--output-dir {out}: cannot be written: {err.strerror or err}"
        ) from None
