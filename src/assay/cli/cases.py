"""``assay cases``: grow a dataset: candidate cases from a run's failures, and imports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from assay.cli._flags import STORE

app = typer.Typer(
    name="cases",
    help="Grow a dataset: candidates from observed failures, imports from CSV or datasets.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip()) if value else ()


@app.command("from-run")
def from_run(
    run_id: str = typer.Argument(..., help="The stored run (see assay runs)."),
    status: str = typer.Option(
        "failed,error", "--status", help="Statuses to take (failed,error,missing,ungraded)."
    ),
    ids: str | None = typer.Option(None, "--ids", help="Only these case ids (A,B)."),
    output: Path = typer.Option(..., "--output", "-o", help="New JSONL or YAML file to write."),
    store: str | None = STORE,
) -> None:
    """Write candidate cases from RUN's observed failures, flagged for review.

    Each candidate copies the case's input and labels, records what was observed and
    where (`metadata.origin: run RUN case X`, `metadata.observed`), leaves `rationale`
    empty to fill in, and carries `metadata.review: pending`: `assay validate` refuses it
    in a dataset until a reviewer sets `review: done`.
    """
    from assay.cli._dataset import refuse_existing, write_dataset
    from assay.errors import AssayConfigError
    from assay.runs import report_for_run
    from assay.store import open_store

    wanted = set(_names(status))
    known = {"passed", "failed", "error", "missing", "ungraded"}
    if not wanted or wanted - known:
        raise AssayConfigError(f"--status {status}: choose among {', '.join(sorted(known))}")
    refuse_existing(output)
    runs = open_store(store, create=False)
    try:
        report = report_for_run(runs, run_id)
        dataset = runs.load_dataset(run_id)
    finally:
        runs.close()
    only = set(_names(ids))
    unknown = only - set(dataset.ids)
    if unknown:
        raise AssayConfigError(f"--ids: run {run_id} has no case {', '.join(sorted(unknown))}")
    taken: dict[str, dict[str, Any]] = {}
    for row in report.cases:
        if row.status not in wanted or (only and row.id not in only) or row.id in taken:
            continue
        case = dataset.get(row.id)
        if case is None:
            continue
        record = case.model_dump(mode="json", exclude_defaults=True)
        record["id"] = f"{case.id}.run-{run_id}"
        record["rationale"] = ""
        record.pop("split", None)
        record["metadata"] = {
            **case.metadata,
            "origin": f"run {run_id} case {case.id}",
            "review": "pending",
            "observed": {
                "trial": row.trial,
                "status": row.status,
                "outcome": row.outcome,
                "fact": row.fact,
                "text": row.text,
                "reason": row.reason,
            },
        }
        taken[row.id] = record
    if not taken:
        typer.echo(
            f"assay: run {run_id} has no case with status {', '.join(sorted(wanted))}; "
            "nothing written",
            err=True,
        )
        return
    write_dataset(list(taken.values()), output)
    typer.echo(
        f"wrote {output}: {len(taken)} candidate case(s) from run {run_id}, flagged for "
        "review (fill in each rationale, check the labels, then set metadata.review: done)",
        err=True,
    )


@app.command("import")
def import_(
    source: Path = typer.Argument(
        ..., help="A CSV file, or a folder holding a Hugging Face dataset saved to disk."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="New JSONL or YAML file to write."),
    mapping: list[str] = typer.Option(
        [],
        "--map",
        help="FIELD=COLUMN, repeatable; COLUMN may be a path such as answers.text[0].",
    ),
    slice_: str | None = typer.Option(
        None, "--slice", help="Slice of every case whose slice is not mapped."
    ),
    id_prefix: str = typer.Option("", "--id-prefix", help="Put before every imported id."),
    hf_split: str | None = typer.Option(
        None, "--hf-split", help="The split of a saved DatasetDict (e.g. validation)."
    ),
    limit: int | None = typer.Option(None, "--limit", help="Import only the first N rows."),
    synthetic: bool = typer.Option(False, "--synthetic", help="Flag every case synthetic."),
) -> None:
    """Import cases from a CSV file or a Hugging Face dataset saved with save_to_disk.

    Unmapped fields: `id` is the row number, `expected_behavior` is `answer` when the row
    has an expected fact and `abstain` otherwise, `expected_fact` defaults to the first of
    `accepted_facts`. Every row is validated; all invalid rows are reported at once and
    nothing is written.
    """
    from itertools import islice

    from assay.cli._dataset import refuse_existing, write_dataset
    from assay.errors import AssayConfigError
    from assay.load import ImportSettings, csv_rows, hf_rows, import_rows, parse_mapping

    refuse_existing(output, [source])
    if limit is not None and limit < 1:
        raise AssayConfigError(f"--limit {limit}: must be at least 1")
    settings = ImportSettings(
        parse_mapping(mapping), slice=slice_, id_prefix=id_prefix, synthetic=synthetic
    )
    is_csv = source.suffix.lower() == ".csv"
    rows = (
        csv_rows(source, settings.mapping)
        if is_csv
        else hf_rows(source, hf_split, settings.mapping)
    )
    records = import_rows(islice(rows, limit), settings, csv=is_csv)
    write_dataset(records, output, inputs=[source])
    typer.echo(f"wrote {output} ({len(records)} cases imported from {source})", err=True)


@app.command("changelog")
def changelog(
    dataset: Path = typer.Argument(..., help="The dataset file."),
    who: str | None = typer.Option(None, "--who", help="Who changed this version."),
    why: str | None = typer.Option(None, "--why", help="Why (which labels, after what)."),
) -> None:
    """Record who changed the dataset's current version and why, or list the changelog.

    With --who and --why, appends an entry for the current version to
    DATASET.changelog.jsonl beside the dataset (the dataset itself is not touched); reports
    of this version show it. Without them, lists the entries, marking the current version.
    """
    from assay.errors import AssayConfigError
    from assay.load import append_change, changelog_path, load_dataset, read_changelog

    data = load_dataset(dataset)
    if who is None and why is None:
        entries = read_changelog(dataset)
        if not entries:
            typer.echo(f"{changelog_path(dataset)}: no entries yet")
        for e in entries:
            mark = "  (current)" if e["version"] == data.version else ""
            typer.echo(f"{e.get('date', '?')}  {e['version'][:19]}  {e['who']}: {e['why']}{mark}")
        return
    if who is None or why is None:
        raise AssayConfigError("give both --who and --why (or neither, to list the changelog)")
    entry = append_change(dataset, data.version, who, why)
    typer.echo(
        f"recorded in {changelog_path(dataset)}: {data.version[:19]} "
        f"{entry['who']}: {entry['why']}",
        err=True,
    )
