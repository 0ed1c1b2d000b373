"""``assay split``: assign dev and held-out deterministically, without leakage."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._dataset import SHINGLE, THRESHOLD


def split(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    heldout: float = typer.Option(0.2, "--heldout", help="Fraction of each stratum held out."),
    seed: int = typer.Option(..., "--seed", help="Seed of the assignment (record it)."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the dataset with `split` set here (a new file)."
    ),
    shingle: int = SHINGLE,
    threshold: float = THRESHOLD,
    min_cases: int = typer.Option(3, "--min-cases", help="A cell with fewer real cases is thin."),
) -> None:
    """Assign `split` (dev or heldout) to every case of DATASET and print the coverage matrix.

    Every `group` and every near-duplicate cluster stays on one side; each stratum (slice ×
    expected behaviour) gets about --heldout of its cases. The same dataset, fraction and
    seed always give the same split. Without --output nothing is written.
    """
    from assay.cases import assign_splits, coverage_matrix, find_clusters
    from assay.cli._dataset import near_settings, progress_bar, refuse_existing
    from assay.errors import AssayConfigError
    from assay.load import load_dataset
    from assay.render import render

    if not 0 < heldout < 1:
        raise AssayConfigError(f"--heldout {heldout}: give a fraction above 0 and below 1")
    near = near_settings(shingle, threshold)
    if output is not None:
        refuse_existing(output, [dataset])
    data = load_dataset(dataset)
    with progress_bar("near-duplicates", len(data)) as advance:
        clusters = find_clusters(data.cases, near, advance)
    splits = assign_splits(data.cases, clusters, heldout, seed)
    cases = [c.model_copy(update={"split": splits[c.id]}) for c in data.cases]
    moved = sum(c.split != splits[c.id] for c in data.cases)
    held = sum(s == "heldout" for s in splits.values())
    typer.echo(
        f"assay split · {dataset} · seed {seed} · {held} of {len(cases)} held out "
        f"({moved} case(s) changed side)"
    )
    typer.echo("")
    cov = coverage_matrix(cases, min_cases=min_cases, dataset=dataset.name)
    typer.echo(render(cov, "text"))
    if output is None:
        typer.echo("nothing written: give --output FILE to write the split dataset", err=True)
        return
    from assay.cli._dataset import raw_cases, rebase_sources, write_dataset

    rows, header = raw_cases(dataset)
    for row, case in zip(rows, data.cases, strict=True):
        row["split"] = splits[case.id]
    write_dataset(rows, output, rebase_sources(header, dataset, output), [dataset])
    typer.echo(f"wrote {output} ({len(rows)} cases)", err=True)
