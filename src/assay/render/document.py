"""A document: headings, paragraphs, banners, tables and lists that the terminal text and
the Markdown writers both draw, so a renderer says what to show once.

Every string in a document is data, never markup: the text writer escapes terminal
control characters and the Markdown writer makes HTML, links, ``|`` and newlines inert.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Align = Literal["left", "right"]
Layout = Literal["wrap", "whole", "clauses"]
"""How a terminal lays out a long line: wrapped at its width, kept whole, or broken after
its ``; `` clauses (so a sentence never wraps in the middle of a phrase)."""
Emphasis = Literal["plain", "strong", "emph", "code", "figure", "aside"]
Overflow = Literal["fold", "ellipsis"]


@dataclass(frozen=True)
class Span:
    """A run of text with an emphasis (Markdown) and a colour (terminal).

    ``strong`` is bold on a colour terminal and ``**bold**`` in Markdown; ``emph`` and
    ``code`` show only in Markdown. A ``figure`` is text assay formatted itself, never
    data (a number, an interval ``[4.3%, 77.7%]``, a fixed label): Markdown writes it as
    it is. An ``aside`` is a sentence assay wrote itself (a rule it applies), never data:
    Markdown sets it in ``_…_`` as it is, a terminal shows it plain."""

    text: str
    emphasis: Emphasis = "plain"
    color: str | None = None


Inline = str | Span
"""A piece of a paragraph or a table cell."""


def inlines(content: Inline | Sequence[Inline]) -> tuple[Inline, ...]:
    """``content`` as a tuple of pieces."""
    if isinstance(content, str | Span):
        return (content,)
    return tuple(content)


def plain(content: Sequence[Inline]) -> str:
    """The text of ``content`` without emphasis."""
    return "".join(piece if isinstance(piece, str) else piece.text for piece in content)


@dataclass(frozen=True)
class Heading:
    """A title: a bold line on a terminal, a ``#`` heading of ``level`` in Markdown."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """One line of running text, laid out on a terminal as ``layout`` says."""

    content: tuple[Inline, ...]
    layout: Layout = "wrap"

    @classmethod
    def of(cls, *content: Inline, layout: Layout = "wrap") -> Paragraph:
        return cls(tuple(content), layout=layout)


@dataclass(frozen=True)
class Banner:
    """A warning a reader must not miss: a bold yellow line on a terminal, a heading of
    ``level`` in Markdown."""

    text: str
    level: int = 3


@dataclass(frozen=True)
class Column:
    """A table column. A ``whole`` column is never narrowed on a terminal (a figure or an
    id is never cut); every other column folds long words onto several lines, or cuts
    them with an ellipsis when its ``overflow`` says so."""

    name: str | Span
    align: Align = "left"
    whole: bool = False
    overflow: Overflow = "fold"

    @property
    def title(self) -> str:
        """The column's name as plain text."""
        return self.name if isinstance(self.name, str) else self.name.text


Cell = str | Span | tuple[Inline, ...]
"""A table cell: text, a span, or pieces of both (an id in code, then its status)."""


@dataclass(frozen=True)
class Table:
    """Rows under named columns, with an optional title above them.

    In Markdown the title is a bold line, or a heading of ``title_level`` when one is
    given; ``pad_edge`` puts a space at a terminal table's outer edges. A ``plain`` table
    is drawn on a terminal as aligned columns two spaces apart, nothing cut or folded; a
    ``padded`` one keeps every row padded with blanks to the table's width (as
    ``assay runs`` has always printed it)."""

    columns: tuple[Column, ...]
    rows: Sequence[Sequence[Cell]]
    title: str | None = None
    title_level: int | None = None
    title_color: str | None = None
    pad_edge: bool = False
    plain: bool = False
    padded: bool = False


@dataclass(frozen=True)
class Lines:
    """Short sentences, one per line: on a terminal each on its own line, kept whole; in
    Markdown the consecutive lines of one paragraph."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class BulletList:
    """Items under an optional bold title: a bulleted list in Markdown, one line per item
    on a terminal, each after ``marker`` (nothing by default)."""

    items: tuple[str, ...]
    title: str | None = None
    layout: Layout = "wrap"
    marker: str = ""


@dataclass(frozen=True)
class Groups:
    """Many short labels (case ids) grouped under lines that say what they share: a
    summary a reader can take in that still names every label once."""

    title: str
    groups: tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Preformatted:
    """Lines laid out by their writer (a tree, aligned columns): kept as they are on a
    terminal, a fenced code block in Markdown."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Gap:
    """An empty line on a terminal (Markdown separates every block by one already)."""


@dataclass(frozen=True)
class Only:
    """Blocks drawn in one format only (``text`` or ``markdown``), where the two formats
    deliberately say a thing differently."""

    fmt: Literal["text", "markdown"]
    blocks: tuple[Block, ...] = field(default_factory=tuple)


Block = (
    Heading | Paragraph | Banner | Table | Lines | BulletList | Groups | Preformatted | Gap | Only
)


@dataclass(frozen=True)
class Document:
    """A sequence of blocks, drawn top to bottom."""

    blocks: tuple[Block, ...]


def table(
    columns: Sequence[Column | str],
    rows: Sequence[Sequence[Cell]],
    *,
    title: str | None = None,
    title_level: int | None = None,
    title_color: str | None = None,
    pad_edge: bool = False,
    plain: bool = False,
    padded: bool = False,
) -> Table:
    """A ``Table`` whose columns may be given by name alone (left-aligned text)."""
    cols = tuple(c if isinstance(c, Column) else Column(c) for c in columns)
    return Table(cols, rows, title, title_level, title_color, pad_edge, plain, padded)


__all__ = [
    "Align",
    "Banner",
    "Block",
    "BulletList",
    "Cell",
    "Column",
    "Document",
    "Emphasis",
    "Gap",
    "Groups",
    "Heading",
    "Inline",
    "Layout",
    "Lines",
    "Only",
    "Overflow",
    "Paragraph",
    "Preformatted",
    "Span",
    "Table",
    "inlines",
    "plain",
    "table",
]
