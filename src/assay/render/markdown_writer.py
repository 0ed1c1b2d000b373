"""A ``Document`` as GitHub-flavoured Markdown, every piece of data made inert."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay.render._markdown import code, text
from assay.render._terminal import escape_controls
from assay.render.document import (
    Banner,
    Block,
    BulletList,
    Cell,
    Document,
    Gap,
    Groups,
    Heading,
    Inline,
    Lines,
    Only,
    Paragraph,
    Preformatted,
    Table,
    inlines,
)

_BACKTICKS = re.compile(r"`+")


def _inline(piece: Inline) -> str:
    if isinstance(piece, str):
        return text(piece)
    if piece.emphasis == "code":
        return code(piece.text)
    if piece.emphasis == "figure":
        return escape_controls(piece.text)
    if piece.emphasis == "aside":
        return f"_{escape_controls(piece.text)}_"
    if piece.emphasis == "strong":
        return f"**{text(piece.text)}**"
    if piece.emphasis == "emph":
        return f"*{text(piece.text)}*"
    return text(piece.text)


def _row(cells: Sequence[Cell]) -> str:
    return "| " + " | ".join("".join(_inline(p) for p in inlines(c)) for c in cells) + " |"


def _table(t: Table) -> list[str]:
    lines: list[str] = []
    if t.title is not None:
        title = text(t.title)
        lines += [f"{'#' * t.title_level} {title}" if t.title_level else f"**{title}**", ""]
    lines.append(_row([c.name for c in t.columns]))
    lines.append("|" + "".join("---:|" if c.align == "right" else "---|" for c in t.columns))
    lines += [_row(row) for row in t.rows]
    return lines


def _block(b: Block) -> list[list[str]]:
    """The Markdown blocks (each a list of lines) that ``b`` draws."""
    if isinstance(b, Heading):
        return [[f"{'#' * b.level} {text(b.text)}"]]
    if isinstance(b, Paragraph):
        return [["".join(_inline(p) for p in b.content)]]
    if isinstance(b, Banner):
        return [[f"{'#' * b.level} {text(b.text)}"]]
    if isinstance(b, Table):
        return [_table(b)]
    if isinstance(b, Lines):
        return [[text(item) for item in b.items]] if b.items else []
    if isinstance(b, BulletList):
        items = [f"- {text(item)}" for item in b.items]
        return [[f"**{text(b.title)}**", "", *items] if b.title is not None else items]
    if isinstance(b, Groups):
        lines = [f"**{text(b.title)}**", ""]
        for head, labels in b.groups:
            lines.append(f"- {text(head)}: " + ", ".join(code(label) for label in labels))
        return [lines]
    if isinstance(b, Preformatted):
        body = [escape_controls(line) for line in b.lines]
        longest = max((len(run) for line in body for run in _BACKTICKS.findall(line)), default=0)
        fence = "`" * max(3, longest + 1)
        return [[fence, *body, fence]]
    if isinstance(b, Only) and b.fmt == "markdown":
        return [drawn for inner in b.blocks for drawn in _block(inner)]
    assert isinstance(b, Gap | Only)
    return []


def write_markdown(doc: Document) -> str:
    """``doc`` as Markdown: its blocks separated by one empty line."""
    blocks = [drawn for b in doc.blocks for drawn in _block(b)]
    return "\n\n".join("\n".join(lines) for lines in blocks) + "\n"


__all__ = ["write_markdown"]
