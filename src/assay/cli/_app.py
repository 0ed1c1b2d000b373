"""The ``assay`` command: a thin shell over the library, one module per command."""

from __future__ import annotations

import importlib
from typing import Any

import typer


def _print_version(value: bool) -> None:
    if value:
        from assay._version import __version__

        typer.echo(f"assay {__version__}")
        raise typer.Exit(0)


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


# Every command, in the order a user meets them: its name, the module of assay.cli that
# defines it, the function (or sub-app) there, and whether it is a group of subcommands.
# Each command module imports its heavy dependencies inside the command function, so
# `assay --help` stays fast; a command's own run imports its module alone (``app_for``).
COMMANDS: tuple[tuple[str, str, str, bool], ...] = (
    ("init", "init", "init", False),
    ("validate", "validate", "validate", False),
    ("dedupe", "dedupe", "dedupe", False),
    ("coverage", "coverage", "coverage", False),
    ("split", "split", "split", False),
    ("diff-dataset", "diff_dataset", "diff_dataset", False),
    ("cases", "cases", "app", True),
    ("plan", "plan", "plan", False),
    ("run", "run", "run", False),
    ("runs", "stored", "runs_app", True),
    ("report", "stored", "report", False),
    ("score", "score", "score", False),
    ("composite", "composite", "composite", False),
    ("regrade", "regrade", "regrade", False),
    ("calibrate", "calibrate", "calibrate", False),
    ("synthesize", "synthesize", "app", True),
    ("import", "interop", "import_app", True),
    ("compare", "compare", "compare", False),
    ("matrix", "matrix", "matrix", False),
    ("gate", "gate", "gate", False),
    ("trace", "trace", "trace", False),
    ("diagnose", "diagnose", "diagnose", False),
    ("trend", "trend", "trend", False),
    ("export", "export", "export", False),
    ("view", "view", "view", False),
    ("cache", "cache", "app", True),
)


def _app(names: frozenset[str] | None = None) -> typer.Typer:
    """The app with the commands ``names`` lists (every command when None)."""
    made = typer.Typer(
        name="assay",
        help="Evaluate LLM applications with numbers you can trust.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    made.callback()(_root)
    for name, module, attribute, group in COMMANDS:
        if names is not None and name not in names:
            continue
        command: Any = getattr(importlib.import_module(f"assay.cli.{module}"), attribute)
        if group:
            made.add_typer(command, name=name)
        else:
            made.command(name)(command)
    return made


_WHOLE: list[typer.Typer] = []


def whole_app() -> typer.Typer:
    """The app with every command (made once)."""
    if not _WHOLE:
        _WHOLE.append(_app())
    return _WHOLE[0]


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, made when first asked for
        return whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def app_for(args: list[str]) -> typer.Typer:
    """The app with only the command that ``args`` name, as the whole app would run it:
    importing every command's module and turning every command's options into click's
    costs tens of milliseconds a process. The whole app when ``args`` name no command
    (``--help``, ``--version``, a typo)."""
    name = args[0] if args else ""
    if name.startswith("-") or not any(name == known for known, *_ in COMMANDS):
        return whole_app()
    return _app(frozenset({name}))
