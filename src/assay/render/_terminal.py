"""Text that is safe to show on a terminal: every control character made visible.

A model answer, a case id or a span attribute may hold terminal escape sequences (clear
the screen, move the cursor, set the window title, OSC 8 hyperlinks) or bidirectional
overrides that make a line read differently than it is written. Shown raw, they could
erase a CI log and print a fake verdict. assay writes each such character as a visible
``\\uXXXX`` escape instead, which a JSON reader also decodes back to the same character.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.segment import Segment

from assay._controls import escape_controls, has_controls


class SafeConsole(Console):
    """A rich console that never interprets data: no markup (``[red]`` is text), no emoji
    codes, no highlighting, and every control character in the text it draws escaped
    before any colour is applied (so only its own styles reach the terminal)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("highlight", False)
        super().__init__(**kwargs)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (
            segment
            if segment.control or not has_controls(segment.text)
            else Segment(escape_controls(segment.text), segment.style, segment.control)
            for segment in buffer
        )
        return super()._render_buffer(safe)


__all__ = ["SafeConsole", "escape_controls", "has_controls"]
