"""The ``assay`` command: a thin shell over the library, one module per command."""

from __future__ import annotations

import copy

import typer

app = typer.Typer(
    name="assay",
    help="Evaluate LLM applications with numbers you can trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from assay._version import __version__

        typer.echo(f"assay {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print assay's version and exit.",
        is_eager=True,
        callback=_print_version,
    ),
) -> None:
    """Evaluate LLM applications with numbers you can trust."""


def _register() -> None:
    # Each command module imports its heavy dependencies inside the command function,
    # so `assay --help` stays fast. Commands are listed in the order a user meets them.
    from assay.cli import (
        cache,
        calibrate,
        cases,
        compare,
        composite,
        coverage,
        dedupe,
        diagnose,
        diff_dataset,
        export,
        gate,
        init,
        interop,
        matrix,
        regrade,
        run,
        score,
        split,
        stored,
        synthesize,
        trace,
        trend,
        validate,
        view,
    )

    app.command("init")(init.init)
    app.command("validate")(validate.validate)
    app.command("dedupe")(dedupe.dedupe)
    app.command("coverage")(coverage.coverage)
    app.command("split")(split.split)
    app.command("diff-dataset")(diff_dataset.diff_dataset)
    app.add_typer(cases.app, name="cases")
    app.command("run")(run.run)
    app.add_typer(stored.runs_app, name="runs")
    app.command("report")(stored.report)
    app.command("score")(score.score)
    app.command("composite")(composite.composite)
    app.command("regrade")(regrade.regrade)
    app.command("calibrate")(calibrate.calibrate)
    app.add_typer(synthesize.app, name="synthesize")
    app.add_typer(interop.import_app, name="import")
    app.command("compare")(compare.compare)
    app.command("matrix")(matrix.matrix)
    app.command("gate")(gate.gate)
    app.command("trace")(trace.trace)
    app.command("diagnose")(diagnose.diagnose)
    app.command("trend")(trend.trend)
    app.command("export")(export.export)
    app.command("view")(view.view)
    app.add_typer(cache.app, name="cache")


_register()


def app_for(args: list[str]) -> typer.Typer:
    """The app with only the command that ``args`` name, as the whole app would run it:
    turning every command's options into click's costs tens of milliseconds a process.
    The whole app when ``args`` name no command (``--help``, ``--version``, a typo)."""
    name = args[0] if args else ""
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not (commands or groups) or name.startswith("-"):
        return app
    one = copy.copy(app)
    one.registered_commands = commands
    one.registered_groups = groups
    return one
