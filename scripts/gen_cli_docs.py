"""Write docs/cli.md from the ``--help`` of every command registered on the ``assay`` app.

Commands are discovered from the typer app, so a new command appears after one run:

    .venv/bin/python scripts/gen_cli_docs.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from assay.cli._app import app

TARGET = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
WIDTH = 88
HEADER = """\
# CLI reference

<!-- Generated from `assay --help` by scripts/gen_cli_docs.py: edit the commands'
     help text, then run `.venv/bin/python scripts/gen_cli_docs.py`. -->

Every command prints bad input as one message on stderr and exits with code 2; a failed
gate exits with code 1. Commands that write a file (`--output`) never overwrite an input
or a file assay did not write (see [formats](formats.md#output-files)).

"""


def _context(command: Any, name: str, parent: Any = None) -> Any:
    return command.context_class(
        command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH
    )


def _sections(command: Any, name: str, parent: Any = None) -> list[tuple[str, str]]:
    """(full command name, help text) for ``command`` and, recursively, its subcommands."""
    ctx = _context(command, name, parent)
    path = ctx.command_path
    found = [(path, command.get_help(ctx))]
    if hasattr(command, "list_commands"):
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            if sub is not None and not getattr(sub, "hidden", False):
                found.extend(_sections(sub, sub_name, ctx))
    return found


def cli_docs() -> str:
    """The exact contents of docs/cli.md."""
    sections = _sections(typer.main.get_command(app), "assay")
    lines = [HEADER.rstrip("\n"), ""]
    lines += [f"- [`{path}`](#{path.replace(' ', '-')})" for path, _ in sections[1:]]
    for path, text in sections:
        lines += ["", f"## {path}", "", "```text", text.rstrip(), "```"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(cli_docs(), encoding="utf-8")
    print(f"wrote {TARGET}")
