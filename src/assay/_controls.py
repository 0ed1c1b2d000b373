"""Text that is safe to show on a terminal: every control character made visible.

A model answer, a case id or a span attribute may hold terminal escape sequences (clear
the screen, move the cursor, set the window title, OSC 8 hyperlinks) or bidirectional
overrides that make a line read differently than it is written. Shown raw, they could
erase a CI log and print a fake verdict. assay writes each such character as a visible
``\\uXXXX`` escape instead, which a JSON reader also decodes back to the same character.
A lone UTF-16 surrogate (``\\ud800``, which a stored run read back from JSON may hold) is
written the same way: it is no text, and no UTF-8 stream or file can take it.

Kept apart from the renderers (which need rich and the report model) so that every command,
``assay --help`` included, can escape its error messages without loading them.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls, and the Unicode bidirectional
# controls (marks, embeddings, overrides, isolates) plus the line/paragraph separators,
# and the UTF-16 surrogates (alone in a str, never text).
_SURROGATES = "\ud800-\udfff"
_CONTROL_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    + _SURROGATES
)
LONE_SURROGATE = re.compile(f"[{_SURROGATES}]")
"""A UTF-16 surrogate standing alone in a str: no text, and no UTF-8 stream can hold it."""
_CONTROLS = re.compile(f"[{_CONTROL_CLASS}]")
# The colour sequences assay's own renderer writes (Select Graphic Rendition).
_SGR_OR_CONTROL = re.compile(f"(\x1b\\[[0-9;]*m)|[{_CONTROL_CLASS}]")


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def _visible_keeping_sgr(match: re.Match[str]) -> str:
    return match.group(1) or f"\\u{ord(match.group(0)):04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\uXXXX`` escape."""
    return text if text.isascii() else LONE_SURROGATE.sub(_visible, text)


def escape_controls(text: str, *, keep_colors: bool = False) -> str:
    """``text`` with every terminal control character written as a visible ``\\uXXXX``.

    Tab and newline are kept. With ``keep_colors``, colour sequences (``ESC [ … m``) are
    kept too: for output whose data was escaped already, on a colour terminal.
    """
    if keep_colors:
        return _SGR_OR_CONTROL.sub(_visible_keeping_sgr, text)
    if text.isascii() and not _ascii_controls(text):
        return text  # the usual report: a byte-level test, many times faster than the regex
    return _CONTROLS.sub(_visible, text)


# The ASCII members of the control class: C0 except tab and newline, and DEL.
_ASCII_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


def _ascii_controls(text: str) -> bool:
    """Whether ASCII ``text`` holds a control character ``escape_controls`` rewrites
    (tested a megabyte at a time: a report of a million rows is not copied whole)."""
    step = 1 << 20
    for start in range(0, len(text), step):
        raw = text[start : start + step].encode("ascii")
        if len(raw.translate(None, _ASCII_CONTROLS)) != len(raw):
            return True
    return False


def has_controls(text: str) -> bool:
    """Whether ``text`` holds a character ``escape_controls`` would rewrite."""
    return _CONTROLS.search(text) is not None
