"""``assay runs`` and ``assay report``: stored runs, listed and re-rendered without re-running."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import (
    CONFIDENCE,
    INTERVAL,
    OUTPUT,
    PRODUCT_SELECTS_BEST,
    STORE,
    TRIAL_POLICY,
    format_option,
)
from assay.cli._output import described, emit, wants_color

runs_app = typer.Typer(
    name="runs",
    help="List stored runs; tag one (e.g. as the baseline) or untag it.",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@runs_app.callback(invoke_without_command=True)
def runs(
    ctx: typer.Context,
    store: str | None = STORE,
    format: str = format_option("runs", from_output=False),
    limit: int = typer.Option(50, help="Show at most this many runs (newest first)."),
) -> None:
    """List stored runs, newest first: id (and name), when, suite name, dataset version,
    target, the split it ran (held-out runs marked, with their count), status, task
    success, tags, usage, and whether a judge calibration applies (applies, stale: what
    differs, none, -). `assay runs tag RUN NAME` tags a run; `assay runs untag RUN NAME`
    removes the tag; `assay runs delete RUN…` deletes runs. Wherever a RUN is asked for,
    `latest` is the newest run and `latest~1` the one before it."""
    if ctx.invoked_subcommand is not None:
        return
    from assay.cli._options import check_format
    from assay.formats import formats
    from assay.render import render
    from assay.runs import run_listing
    from assay.store import open_store

    check_format(format, formats("runs"))
    opened = open_store(store, create=False)
    try:
        listing = run_listing(opened.list_runs()[:limit])
    finally:
        opened.close()
    emit(render(listing, format, color=wants_color(None)), None)


@runs_app.command("tag")
def tag(
    run_id: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    name: str = typer.Argument(..., help="The tag, e.g. baseline."),
    store: str | None = STORE,
) -> None:
    """Tag a run NAME, such as baseline, for `assay gate --trend`. A tag names one run per
    suite: tagging another run of the suite moves it."""
    from assay.store import open_store

    opened = open_store(store, create=False)
    try:
        moved_from = opened.tag_run(run_id, name)
        info = opened.get_run(run_id)
    finally:
        opened.close()
    moved = f" (moved from {moved_from})" if moved_from else ""
    typer.echo(f"tagged {info.id} {name!r} in suite {info.suite_name}{moved}")


@runs_app.command("delete")
def delete(
    run_ids: list[str] = typer.Argument(
        ..., help="Run ids, unique prefixes, names or latest / latest~N.", show_default=False
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
    store: str | None = STORE,
) -> None:
    """Delete stored runs: their records, judgments and spans. Nothing else changes (other
    runs, tags of other runs, files). Asks first unless --yes; a run being written (a run
    or --resume in progress) is refused."""
    from assay.errors import AssayConfigError
    from assay.store import open_store

    opened = open_store(store, create=False)
    try:
        infos = [opened.get_run(ref) for ref in run_ids]
        unique = list({info.id: info for info in infos}.values())
        for info in unique:
            named = f" ({info.name})" if info.name else ""
            typer.echo(
                f"{info.id}{named} · {info.suite_name or '–'} · {info.status} · "
                f"started {info.started_at.isoformat(timespec='seconds')}"
            )
        if not yes:
            import sys

            if not sys.stdin.isatty():
                raise AssayConfigError(
                    f"deleting {len(unique)} run(s) needs confirmation: add --yes"
                )
            if not typer.confirm(f"Delete {len(unique)} run(s)?", default=False):
                typer.echo("nothing deleted")
                return
        for info in unique:
            opened.delete_run(info.id)
            typer.echo(f"deleted {info.id}")
    finally:
        opened.close()


@runs_app.command("untag")
def untag(
    run_id: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    name: str = typer.Argument(..., help="The tag to remove."),
    store: str | None = STORE,
) -> None:
    """Remove tag NAME from a run."""
    from assay.store import open_store

    opened = open_store(store, create=False)
    try:
        info = opened.get_run(run_id)
        removed = opened.untag_run(info.id, name)
    finally:
        opened.close()
    if removed:
        typer.echo(f"removed tag {name!r} from {info.id}")
    else:
        typer.echo(f"{info.id} has no tag {name!r}; nothing changed")


def report(
    run_id: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    store: str | None = STORE,
    format: str | None = format_option("report", notes={"html": "with traces"}),
    output: Path | None = OUTPUT,
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    trial_policy: str | None = TRIAL_POLICY,
    product_selects_best: bool = PRODUCT_SELECTS_BEST,
    prices: Path | None = typer.Option(
        None, "--prices", help="Price the run with this table (YAML) instead of its own."
    ),
) -> None:
    """Re-render the report of a stored run (nothing is re-run)."""
    from assay.cli._options import check_policy, interval_setting, output_format
    from assay.load import load_prices
    from assay.render import render_written
    from assay.report import TracedReport
    from assay.runs import run_report
    from assay.store import open_store

    format = output_format(format, output)
    setting = interval_setting(confidence, interval)
    table = load_prices(prices) if prices is not None else None
    opened = open_store(store, create=False)
    try:
        policy = None
        if trial_policy is not None:
            trials = opened.get_run(run_id).trials
            policy = check_policy(trial_policy, trials, product_selects_best)
        with run_report(
            opened, run_id, fmt=format, interval=setting, policy=policy, prices=table
        ) as shown:
            built = shown.report if isinstance(shown, TracedReport) else shown
            emit(
                render_written(shown, format, color=wants_color(output)),
                output,
                what=described(built, format, f"run {built.run_id}"),
            )
    finally:
        opened.close()
