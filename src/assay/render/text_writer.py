"""A ``Document`` for a terminal, drawn with rich; returned as a string.

Every control character in the data is written as a visible escape (``SafeConsole``);
only the writer's own styles reach the terminal, and only with ``color``.
"""

from __future__ import annotations

import io
from typing import Literal

from rich.table import Table as RichTable
from rich.text import Text

from assay.render._terminal import SafeConsole, escape_controls
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
    Layout,
    Lines,
    Only,
    Paragraph,
    Preformatted,
    Span,
    Table,
    inlines,
    plain,
)


def _style(span: Span) -> str | None:
    bold = ["bold"] if span.emphasis == "strong" else []
    return " ".join([*bold, *([span.color] if span.color else [])]) or None


def _text(content: tuple[Inline, ...] | Cell) -> Text | str:
    pieces = content if isinstance(content, tuple) else (content,)
    if all(isinstance(p, str) for p in pieces):
        return "".join(p for p in pieces if isinstance(p, str))
    out = Text()
    for p in pieces:
        if isinstance(p, str):
            out.append(p)
        else:
            out.append(p.text, style=_style(p))
    return out


def _width(cell: Cell) -> int:
    return len(plain(inlines(cell)))


def _table(t: Table) -> RichTable:
    """Figures are never cut: a numeric column keeps its widest cell's width, every other
    column folds long words (ids) onto several lines."""
    title_style = f"bold {t.title_color}" if t.title_color else None
    table = RichTable(
        title=t.title,
        title_justify="left",
        title_style=title_style,
        box=None,
        pad_edge=t.pad_edge,
        header_style="bold",
    )
    for i, col in enumerate(t.columns):
        justify: Literal["left", "right"] = col.align
        if col.whole:
            width = max([len(col.title), *(_width(row[i]) for row in t.rows)])
            table.add_column(col.title, justify=justify, no_wrap=True, min_width=width)
        else:
            table.add_column(col.title, justify=justify, overflow=col.overflow)
    for row in t.rows:
        table.add_row(*(_text(c) for c in row))
    return table


def _plain_table(t: Table) -> list[str]:
    """Aligned columns two spaces apart, every cell whole, each line's trailing blanks
    dropped."""
    grid = [
        [escape_controls(c.title) for c in t.columns],
        *([escape_controls(plain(inlines(c))) for c in row] for row in t.rows),
    ]
    widths = [max(len(row[i]) for row in grid) for i in range(len(t.columns))]
    lines = [escape_controls(t.title)] if t.title is not None else []
    for row in grid:
        cells = [
            cell.rjust(w) if col.align == "right" else cell.ljust(w)
            for cell, w, col in zip(row, widths, t.columns, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _groups(g: Groups, width: int) -> list[str]:
    lines = [escape_controls(g.title)]
    for head, labels in g.groups:
        lines.append(escape_controls(head))
        line = "   "
        for label in labels:
            item = escape_controls(label)
            if len(line) + len(item) + 2 > width and line.strip():
                lines.append(line.rstrip())
                line = "   "
            line += f" {item},"
        lines.append(line.rstrip(","))
    return lines


def _clauses(line: str, width: int) -> list[str]:
    """``line`` broken after its '; ' clauses when it is wider than ``width``, the later
    clauses indented."""
    if len(line) <= width or "; " not in line:
        return [line]
    indent = " " * (line.index(": ") + 2 if ": " in line[:12] else 2)
    first, *rest = line.split("; ")
    later = [indent + r + (";" if i < len(rest) - 1 else "") for i, r in enumerate(rest)]
    return [first + ";", *later]


class _Writer:
    def __init__(self, color: bool, width: int) -> None:
        self.width = width
        self.color = color
        self.parts: list[str] = []
        self._fresh()

    def _fresh(self) -> None:
        self.buffer = io.StringIO()
        self.console = SafeConsole(
            file=self.buffer,
            force_terminal=self.color,
            no_color=not self.color,
            width=self.width,
            highlight=False,
        )

    def flush(self) -> None:
        # rich pads every table row to the table's width; trailing blanks only get in the way.
        drawn = self.buffer.getvalue()
        self.parts.extend(line.rstrip() + "\n" for line in drawn.splitlines())
        self._fresh()

    def line(self, text: Text | str, layout: Layout) -> None:
        if layout == "wrap":
            self.console.print(text)
            return
        plain = text.plain if isinstance(text, Text) else text
        parts = _clauses(plain, self.width) if layout == "clauses" else [plain]
        if len(parts) == 1:
            self.console.print(text, soft_wrap=True)
            return
        # A styled line broken into clauses keeps the style of its first piece.
        style = text.spans[0].style if isinstance(text, Text) and text.spans else ""
        for part in parts:
            self.console.print(Text(part, style=style), soft_wrap=True)

    def block(self, b: Block) -> None:
        console = self.console
        if isinstance(b, Heading):
            console.print(Text(b.text, style="bold"))
        elif isinstance(b, Paragraph):
            self.line(_text(b.content), b.layout)
        elif isinstance(b, Banner):
            console.print(Text(b.text, style="bold yellow"))
        elif isinstance(b, Table) and b.plain:
            self.flush()
            self.parts.extend(line + "\n" for line in _plain_table(b))
        elif isinstance(b, Table) and b.padded:
            self.flush()
            self.console.print(_table(b))
            self.parts.append(self.buffer.getvalue())
            self._fresh()
        elif isinstance(b, Table):
            console.print(_table(b))
        elif isinstance(b, Lines):
            for item in b.items:
                self.line(item, "whole")
        elif isinstance(b, BulletList):
            if b.title is not None:
                console.print(Text(b.title, style="bold"))
            for item in b.items:
                self.line(b.marker + item, b.layout)
        elif isinstance(b, Groups):
            # Drawn by hand: rich takes seconds over thousands of lines.
            self.flush()
            self.parts.extend(line + "\n" for line in _groups(b, self.width))
        elif isinstance(b, Preformatted):
            self.flush()
            self.parts.extend(escape_controls(line) + "\n" for line in b.lines)
        elif isinstance(b, Gap):
            console.print()
        elif isinstance(b, Only) and b.fmt == "text":
            for inner in b.blocks:
                self.block(inner)


def write_text(doc: Document, *, color: bool = False, width: int = 120) -> str:
    """``doc`` as terminal text ``width`` columns wide, coloured when ``color``."""
    writer = _Writer(color, width)
    for b in doc.blocks:
        writer.block(b)
    writer.flush()
    return "".join(writer.parts)


__all__ = ["write_text"]
