"""The ``assay`` command: a thin shell over the library, one module per command."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="assay",
    help="Evaluate LLM applications with numbers you can trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print assay's version and exit."),
) -> None:
    """Evaluate LLM applications with numbers you can trust."""
    if version:
        from assay._version import __version__

        typer.echo(f"assay {__version__}")
        raise typer.Exit(0)


def _register() -> None:
    # Each command module imports its heavy dependencies inside the command function,
    # so `assay --help` stays fast. Commands are listed in the order a user meets them.
    from assay.cli import (
        cache,
        compare,
        composite,
        diagnose,
        gate,
        init,
        matrix,
        run,
        score,
        stored,
        synthesize,
        trace,
        view,
    )

    app.command("init")(init.init)
    app.command("run")(run.run)
    app.command("runs")(stored.runs)
    app.command("report")(stored.report)
    app.command("score")(score.score)
    app.command("composite")(composite.composite)
    app.add_typer(synthesize.app, name="synthesize")
    app.command("compare")(compare.compare)
    app.command("matrix")(matrix.matrix)
    app.command("gate")(gate.gate)
    app.command("trace")(trace.trace)
    app.command("diagnose")(diagnose.diagnose)
    app.command("view")(view.view)
    app.add_typer(cache.app, name="cache")


_register()
