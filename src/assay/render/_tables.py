"""Terminal tables whose figures are never cut: numbers keep their full width, text wraps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rich.table import Table
from rich.text import Text

Cell = str | Text


def figures_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    *,
    numeric: Sequence[int] = (),
    right: Sequence[int] = (),
    title: str | None = None,
    title_style: str | None = None,
    pad_edge: bool = False,
) -> Table:
    """A table whose ``numeric`` columns (by index) are never narrowed below their widest
    cell, while every other column folds long words (ids) onto several lines."""
    table = Table(
        title=title,
        title_justify="left",
        title_style=title_style,
        box=None,
        pad_edge=pad_edge,
        header_style="bold",
    )
    for i, header in enumerate(headers):
        cells = [header, *(row[i] for row in rows)]
        width = max(len(c.plain if isinstance(c, Text) else c) for c in cells)
        justify: Literal["left", "right"] = "right" if i in right else "left"
        if i in numeric:
            table.add_column(header, justify=justify, no_wrap=True, min_width=width)
        else:
            table.add_column(header, justify=justify, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table
