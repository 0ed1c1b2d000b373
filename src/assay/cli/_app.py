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
    # so `assay --help` stays fast.
    from assay.cli import score

    app.command("score")(score.score)

    from assay.cli import gate

    app.command("gate")(gate.gate)

    from assay.cli import view

    app.command("view")(view.view)

    from assay.cli import compare

    app.command("compare")(compare.compare)

    from assay.cli import composite, synthesize

    app.command("composite")(composite.composite)
    app.add_typer(synthesize.app, name="synthesize")

    from assay.cli import diagnose, trace

    app.command("trace")(trace.trace)
    app.command("diagnose")(diagnose.diagnose)

    from assay.cli import init, run, stored

    app.command("run")(run.run)
    app.command("runs")(stored.runs)
    app.command("report")(stored.report)
    app.command("init")(init.init)


_register()
