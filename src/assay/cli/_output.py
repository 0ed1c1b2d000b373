"""Writing command output: to stdout or a file, never over a file the user recorded."""

from __future__ import annotations

import sys
from pathlib import Path

from assay.errors import AssayConfigError


def emit(text: str, output: Path | None) -> None:
    """Print ``text`` or write it to ``output`` (an existing file is replaced only if it is
    one assay can regenerate: the caller asked for it by name)."""
    if output is None:
        sys.stdout.write(text)
        return
    if output.is_dir():
        raise AssayConfigError(f"--output {output}: is a directory; give a file path")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")


def wants_color(output: Path | None) -> bool:
    return output is None and sys.stdout.isatty()
