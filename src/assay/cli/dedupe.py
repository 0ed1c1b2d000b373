"""``assay dedupe``: identical and near-identical inputs as clusters; optionally drop them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._dataset import SHINGLE, THRESHOLD
from assay.cli._flags import format_option

if TYPE_CHECKING:
    from assay.cases import Cluster


def dedupe(
    dataset: Path = typer.Argument(..., help="Dataset file (JSONL, YAML, JSON or CSV)."),
    shingle: int = SHINGLE,
    threshold: float = THRESHOLD,
    format: str = format_option("duplicates", from_output=False),
    write: Path | None = typer.Option(
        None,
        "--write",
        help="Write a new dataset keeping the first case of each cluster, and beside it "
        "OUT.dropped.jsonl naming every case dropped and the case kept instead.",
    ),
) -> None:
    """List clusters of cases whose inputs are identical or near-identical.

    Inputs are normalised (case, punctuation, whitespace), cut into character shingles and
    compared by Jaccard similarity; MinHash/LSH proposes candidates and every reported
    similarity is measured exactly. Each cluster's first case (in file order) is the one kept.
    """
    from assay.cases import find_clusters
    from assay.cli._dataset import near_settings, progress_bar
    from assay.cli._options import check_format
    from assay.cli._output import emit
    from assay.formats import formats
    from assay.load import load_dataset
    from assay.render import render
    from assay.report import Duplicates

    check_format(format, formats("duplicates"))
    near = near_settings(shingle, threshold)
    if write is not None:
        from assay.cli._dataset import refuse_existing

        refuse_existing(write, [dataset])
        refuse_existing(_dropped_path(write))
    data = load_dataset(dataset)
    with progress_bar("dedupe", len(data)) as advance:
        clusters = find_clusters(data.cases, near, advance)
    found = Duplicates(str(dataset), len(data), near.shingle, near.threshold, clusters)
    emit(render(found, format), None)
    if write is not None:
        _write(dataset, write, clusters)


def _dropped_path(write: Path) -> Path:
    return write.with_name(f"{write.stem}.dropped.jsonl")


def _write(dataset: Path, write: Path, clusters: tuple[Cluster, ...]) -> None:
    import json

    from assay.cli._dataset import raw_cases, rebase_sources, write_dataset

    rows, header = raw_cases(dataset)
    drop: dict[int, tuple[str, float]] = {}
    for cluster in clusters:
        for m in cluster.members[1:]:
            drop[m.index] = (cluster.members[0].case_id, m.similarity)
    kept = [r for i, r in enumerate(rows) if i not in drop]
    write_dataset(kept, write, rebase_sources(header, dataset, write), [dataset])
    lines = [
        {"dropped": rows[i], "kept": kept_id, "similarity": sim}
        for i, (kept_id, sim) in sorted(drop.items())
    ]
    dropped = _dropped_path(write)
    dropped.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    typer.echo(f"wrote {write} ({len(kept)} cases) and {dropped} ({len(lines)} dropped)", err=True)
    if "sources" in header and write.suffix.lower() == ".jsonl":
        typer.echo(
            f"note: JSON Lines has no header: pass --sources {header['sources']} where needed",
            err=True,
        )
