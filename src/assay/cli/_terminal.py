"""Standard output and error that never pass a control character from data to a terminal.

``main`` wraps both streams: whatever a command prints (a report, a case id in an error
message, a span attribute) has its control characters written as visible ``\\uXXXX``
escapes. On an interactive terminal the colour sequences of assay's own renderer are kept;
its renderer escapes the data it draws before colouring it.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, TextIO

from assay._controls import escape_controls


class EscapingStream:
    """A text stream that escapes control characters before writing to ``raw``."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw
        try:
            self._colors = raw.isatty()
        except (AttributeError, ValueError):
            self._colors = False

    def write(self, text: str) -> int:
        self.raw.write(escape_controls(text, keep_colors=self._colors))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def install() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (once) so every write is escaped."""
    if not isinstance(sys.stdout, EscapingStream):
        sys.stdout = EscapingStream(sys.stdout)
    if not isinstance(sys.stderr, EscapingStream):
        sys.stderr = EscapingStream(sys.stderr)


def raw_stream(name: Literal["stdout", "stderr"]) -> TextIO:
    """The stream under the escaping wrapper, for a console that escapes data itself and
    must send its own cursor movements (a live progress bar)."""
    stream = getattr(sys, name)
    return stream.raw if isinstance(stream, EscapingStream) else stream
