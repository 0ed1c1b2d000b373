"""A ``Document`` as an HTML fragment: the blocks the Markdown writer draws, as elements.

Every string in a document is data: it reaches the fragment HTML-escaped, with its control
characters as visible escapes, so nothing a dataset or a model wrote becomes markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from assay.render._terminal import escape_controls
from assay.render.document import (
    Banner,
    Block,
    BulletList,
    Cell,
    Column,
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

# A terminal colour as the HTML report's class for it (the status colours).
_COLOR_CLASS = {
    "green": "passed",
    "red": "failed",
    "magenta": "error",
    "yellow": "missing",
    "cyan": "ungraded",
}


def _text(value: str) -> str:
    return html.escape(escape_controls(value), quote=True)


def _inline(piece: Inline) -> str:
    if isinstance(piece, str):
        return _text(piece)
    body = _text(piece.text)
    if piece.emphasis == "code":
        body = f"<code>{body}</code>"
    elif piece.emphasis == "strong":
        body = f"<strong>{body}</strong>"
    elif piece.emphasis in ("emph", "aside"):
        body = f"<em>{body}</em>"
    if piece.color in _COLOR_CLASS:
        body = f'<span class="c-{_COLOR_CLASS[piece.color]}">{body}</span>'
    return body


def _cell(cell: Cell) -> str:
    return "".join(_inline(p) for p in inlines(cell))


def _heading(text: str, level: int, cls: str = "") -> str:
    tag = f"h{min(max(level + 1, 2), 6)}"  # the page's own title is the notebook's
    attr = f' class="{cls}"' if cls else ""
    return f"<{tag}{attr}>{_text(text)}</{tag}>"


def _align(column: Column) -> str:
    return ' class="num"' if column.align == "right" else ""


def _table(t: Table) -> list[str]:
    parts: list[str] = []
    if t.title is not None:
        parts.append(_heading(t.title, t.title_level or 3, "table-title"))
    head = "".join(f"<th{_align(c)}>{_cell(c.name)}</th>" for c in t.columns)
    rows = [
        "<tr>"
        + "".join(
            f"<td{_align(c)}>{_cell(cell)}</td>" for c, cell in zip(t.columns, row, strict=False)
        )
        + "</tr>"
        for row in t.rows
    ]
    parts.append(
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    return parts


def _items(items: Sequence[str]) -> str:
    return "<ul>" + "".join(f"<li>{_text(item)}</li>" for item in items) + "</ul>"


def _block(b: Block) -> list[str]:
    """The elements that ``b`` draws (what the Markdown writer draws, as HTML)."""
    if isinstance(b, Heading):
        return [_heading(b.text, b.level)]
    if isinstance(b, Paragraph):
        return ["<p>" + "".join(_inline(p) for p in b.content) + "</p>"]
    if isinstance(b, Banner):
        return [f'<p class="banner">{_text(b.text)}</p>']
    if isinstance(b, Table):
        return _table(b)
    if isinstance(b, Lines):
        return ["<p>" + "<br>".join(_text(item) for item in b.items) + "</p>"] if b.items else []
    if isinstance(b, BulletList):
        title = [f"<p><strong>{_text(b.title)}</strong></p>"] if b.title is not None else []
        return [*title, _items(b.items)]
    if isinstance(b, Groups):
        groups = "".join(
            f"<li>{_text(head)}: " + ", ".join(f"<code>{_text(x)}</code>" for x in labels) + "</li>"
            for head, labels in b.groups
        )
        return [f"<p><strong>{_text(b.title)}</strong></p><ul>{groups}</ul>"]
    if isinstance(b, Preformatted):
        return ["<pre>" + "\n".join(_text(line) for line in b.lines) + "</pre>"]
    if isinstance(b, Only) and b.fmt == "markdown":
        return [drawn for inner in b.blocks for drawn in _block(inner)]
    assert isinstance(b, Gap | Only)
    return []


def write_html(doc: Document) -> str:
    """``doc``'s blocks as HTML elements, one per line (no page, no style, no script)."""
    return "\n".join(drawn for b in doc.blocks for drawn in _block(b))


__all__ = ["write_html"]
