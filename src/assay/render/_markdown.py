"""Data made inert in Markdown: what a dataset, a model or a user wrote shows as text.

Raw HTML (``<script>``, ``<img onerror>``, ``<iframe>``, ``<meta refresh>``), links and
images (``[x](javascript:…)``), autolinks, entities, emphasis and code spans are all
written with their punctuation backslash-escaped; a newline or a ``|`` cannot break a
table row; control characters are visible ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import re

from assay.render._terminal import escape_controls

# The ASCII punctuation that opens HTML, links, images, autolinks, entities, code spans or
# "*" emphasis inline, and the table separator. ("_" emphasis never starts inside a word,
# and "#" only makes a heading at the start of a line, where data never is.)
_SPECIAL = re.compile(r"([\\`*\[\]<>&|])")
_NEWLINES = re.compile(r"\r\n|\r|\n")
_BACKTICKS = re.compile(r"`+")


def _one_line(text: object) -> str:
    return escape_controls(_NEWLINES.sub(" ", str(text)))


def text(value: object) -> str:
    """``value`` as literal Markdown text on one line (also safe inside a table cell)."""
    return _SPECIAL.sub(r"\\\1", _one_line(value))


def code(value: object) -> str:
    """``value`` as an inline code span that no backtick in it can close; a ``|`` is
    escaped as GitHub tables require even inside code."""
    body = _one_line(value).replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith(("`", " ")) or body.endswith(("`", " ")) else ""
    return f"{fence}{pad}{body}{pad}{fence}"
