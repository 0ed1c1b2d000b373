"""``assay import``: runs recorded by other evaluation tools, stored as assay runs."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import STORE

import_app = typer.Typer(
    name="import",
    help="Import runs from other tools (inspect_ai logs, promptfoo exports) into the store.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _announce(imported: object, report: object) -> None:
    from assay.interop import ImportedRun, side_by_side
    from assay.report import Report

    assert isinstance(imported, ImportedRun) and isinstance(report, Report)
    source = imported.source
    version = f" {source.tool_version}" if source.tool_version else ""
    model = imported.variant or imported.target.get("model") or "?"
    typer.echo(
        f"imported {source.tool}{version} {Path(source.path).name} ({model}; "
        f"{source.sha256[:19]}…) as run {report.run_id}: {report.total} case-trials"
    )
    typer.echo(f"  {side_by_side(source, report)}")
    for note in source.notes:
        typer.echo(f"  note: {note}")


@import_app.command("inspect")
def inspect(
    logs: list[Path] = typer.Argument(..., help="inspect_ai logs: .eval archives or .json."),
    scorer: str | None = typer.Option(
        None, "--scorer", help="The scorer whose values decide pass/fail (default: the first)."
    ),
    threshold: list[str] = typer.Option(
        [],
        "--threshold",
        help="SCORER=NUMBER: a numeric value passes at or above NUMBER (default 1.0). Repeatable.",
    ),
    partial_passes: bool = typer.Option(
        False, "--partial-passes", help="Count inspect's 'P' (partial credit) as passed."
    ),
    store: str | None = STORE,
) -> None:
    """Store each inspect_ai log as a run: every sample and epoch (epochs as trials),
    errored samples as error, unscored as ungraded, samples the log's dataset lists but
    the log lacks as missing. Prints inspect's figure beside assay's."""
    from datetime import UTC, datetime

    from assay.errors import AssayConfigError
    from assay.interop import ScoreRule, import_inspect, parse_threshold, store_import
    from assay.store import open_store

    try:
        thresholds = dict(parse_threshold(t) for t in threshold)
    except ValueError as exc:
        raise AssayConfigError(str(exc)) from None
    rule = ScoreRule(thresholds=thresholds, partial_passes=partial_passes)
    imported = [import_inspect(path, rule=rule, scorer=scorer) for path in logs]
    opened = open_store(store)
    try:
        for run in imported:
            _announce(run, store_import(opened, run, now=datetime.now(UTC)))
    finally:
        opened.close()


@import_app.command("promptfoo")
def promptfoo(
    exports: list[Path] = typer.Argument(
        ..., help="promptfoo `export` or `eval --output` JSON files."
    ),
    store: str | None = STORE,
) -> None:
    """Store a promptfoo export as one run per prompt × provider column over the same
    cases (its tests), repeats as trials; several columns form a matrix (see `assay matrix`).
    Assertion results are kept as checks `assay composite` can re-weigh, provider errors
    as error, grader failures as ungraded. Prints promptfoo's pass rate beside assay's."""
    from datetime import UTC, datetime

    from assay.interop import import_promptfoo, store_imports
    from assay.store import open_store

    imported = [import_promptfoo(path) for path in exports]
    opened = open_store(store)
    try:
        for runs in imported:
            reports, matrix_id = store_imports(opened, runs, now=datetime.now(UTC))
            for run, report in zip(runs, reports, strict=True):
                _announce(run, report)
            if matrix_id is not None:
                what = "prompt × provider columns" if runs[0].target.get("prompt") else "providers"
                typer.echo(
                    f"matrix {matrix_id}: {len(runs)} {what} as variants; see "
                    f"`assay matrix {matrix_id}`"
                )
    finally:
        opened.close()
