"""Long lists of cases in text and Markdown: the first rows, then how many more there are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

LIST_ROWS = 100
"""Most rows a list of cases shows in text or Markdown; the rest are counted, never dropped
silently (the JSON report has them all)."""

IDS_SHOWN = 20
"""Most ids a list of cases not drawn or not run names in text or Markdown; the JSON report
lists them all."""

Cell = TypeVar("Cell")


def more_note(total: int, shown: int = LIST_ROWS) -> str:
    """The line that ends a capped list: how many rows it leaves out, and where they are."""
    return f"… and {total - shown:,} more (see --format json)"


def capped(rows: Sequence[Sequence[Cell]], total: int | None = None) -> list[Sequence[Cell | str]]:
    """At most ``LIST_ROWS`` rows; a longer list ends with a row whose first cell says how
    many more there are (``more_note``), the other cells empty. ``total`` is the length of
    the whole list when ``rows`` holds only its beginning."""
    total = len(rows) if total is None else total
    kept: list[Sequence[Cell | str]] = list(rows[:LIST_ROWS])
    if total > LIST_ROWS:
        kept.append([more_note(total), *[""] * (len(rows[0]) - 1)])
    return kept


def first_ids(ids: Sequence[str], shown: int = IDS_SHOWN) -> tuple[tuple[str, ...], str | None]:
    """The first ``shown`` of ``ids``, and the note that counts the rest ('… and 980 more
    (all listed in the JSON report)'; None when every id is shown)."""
    if len(ids) <= shown:
        return tuple(ids), None
    return tuple(ids[:shown]), f"… and {len(ids) - shown:,} more (all listed in the JSON report)"
