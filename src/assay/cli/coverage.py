"""``assay coverage``: the coverage matrix of a dataset, with empty and thin cells named."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import format_option


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip()) if value else ()


def coverage(
    dataset: Path = typer.Argument(
        ..., help="Dataset file, or a suite file (its dataset and its coverage: settings)."
    ),
    require: str | None = typer.Option(
        None, "--require", help="Slices that must have cases (a,b); adds to the suite's."
    ),
    min_cases: int | None = typer.Option(
        None, "--min-cases", help="A cell with fewer real cases is thin (default 3)."
    ),
    format: str | None = format_option("coverage"),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the matrix here."),
) -> None:
    """Print the coverage matrix: slices × expected behaviour (answer, abstain) × split,
    with counts and how many are synthetic.

    Empty and thin cells are warnings. A required slice that is missing or empty is an error
    and exits 2. Given a suite file, its `coverage: {required_slices: [...], min_cases: N}`
    apply.
    """
    from assay.cases import coverage_matrix
    from assay.cli._options import output_format
    from assay.cli._output import emit
    from assay.errors import AssayConfigError
    from assay.formats import formats
    from assay.render import render

    format = output_format(format, output, formats("coverage"))
    required = list(_names(require))
    minimum = 3
    if dataset.suffix.lower() in (".yaml", ".yml") and _is_suite(dataset):
        from assay.load import load_suite

        suite = load_suite(dataset)
        settings = suite.settings.coverage
        required = [*settings.required_slices, *required]
        minimum = settings.min_cases
        data = suite.load_dataset()
    else:
        from assay.load import load_dataset

        data = load_dataset(dataset)
    if min_cases is not None:
        minimum = min_cases
    if minimum < 1:
        raise AssayConfigError(f"--min-cases {minimum}: must be at least 1")
    cov = coverage_matrix(
        data.cases, list(dict.fromkeys(required)), min_cases=minimum, dataset=data.name
    )
    emit(render(cov, format), output, [dataset])
    if cov.has_errors:
        raise typer.Exit(2)


def _is_suite(path: Path) -> bool:
    """True when the YAML file is a mapping naming a dataset and a target (a suite)."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "dataset" in data and "target" in data
