"""The command-line interface. ``main`` maps every ``AssayError`` to one paragraph, exit 2."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` console script."""
    from assay._controls import escape_controls
    from assay.cli._app import app
    from assay.cli._terminal import install
    from assay.errors import AssayError

    install()  # no control character from data reaches the terminal
    try:
        app(args=argv, prog_name="assay")
    except AssayError as err:
        sys.stderr.write(f"assay: {escape_controls(str(err))}\n")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.stderr.write("assay: interrupted\n")
        sys.exit(130)


__all__ = ["main"]
