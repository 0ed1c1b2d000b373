"""Case rows held compactly: each row a tuple of its values, made a ``CaseRow`` when read.

A ``CaseRow`` keeps its twenty-five values in a dictionary of its own (about 900 bytes);
the tuple of the same values costs a quarter of that. A report of a million case-trials
that is only rendered keeps its rows this way (see ``build_report(compact=True)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, NamedTuple, TypeVar, overload

from assay._written import WrittenText
from assay.report._model import CaseRow, Report

T = TypeVar("T")

ROW_FIELDS: tuple[str, ...] = tuple(CaseRow.model_fields)
"""A row's values in the order ``CaseRows`` keeps them: the model's field order."""


def row_of(values: tuple[Any, ...]) -> CaseRow:
    """The ``CaseRow`` of values in ``ROW_FIELDS`` order."""
    return CaseRow.model_validate(dict(zip(ROW_FIELDS, values, strict=True)))


class CaseRows(Sequence[CaseRow]):
    """A read-only sequence of case rows stored as value tuples; reading a row makes it.

    A report holding one is rendered row by row (every renderer iterates or slices its
    ``cases``); dump its rows one at a time rather than the report whole.
    """

    __slots__ = ("_values",)

    def __init__(self, values: Iterable[tuple[Any, ...]]) -> None:
        self._values = list(values)

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> CaseRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseRow]: ...

    def __getitem__(self, index: int | slice) -> CaseRow | list[CaseRow]:
        if isinstance(index, slice):
            return [row_of(v) for v in self._values[index]]
        return row_of(self._values[index])

    def __iter__(self) -> Iterator[CaseRow]:
        for values in self._values:
            yield row_of(values)

    def values(self) -> Iterator[tuple[Any, ...]]:
        """Each row's values in ``ROW_FIELDS`` order, without making the rows."""
        return iter(self._values)

    def rendered(self, size: int, render: Callable[[list[tuple[Any, ...]]], T]) -> Iterator[T]:
        """``render`` of each ``size`` rows' values in order (the last chunk may hold
        fewer)."""
        return map(render, chunked(self._values, size))

    def rendered_texts(
        self, size: int, render: Callable[[list[tuple[Any, ...]]], str], joint: str
    ) -> Iterator[str | WrittenText]:
        """``rendered``'s texts (all made here: none is written ahead)."""
        return self.rendered(size, render)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CaseRows):
            return self._values == other._values
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CaseRows({len(self._values)} rows)"


def rows_where(rows: Sequence[CaseRow], keep: Callable[[str, bool], bool]) -> Iterator[CaseRow]:
    """The rows that ``keep`` wants, from each row's status and synthetic flag, in order.
    Rows read from a store (they have a ``where``) are picked before they are made."""
    where = getattr(rows, "where", None)
    if where is not None:
        picked: Iterator[CaseRow] = where(keep)
        return picked
    return (row for row in rows if keep(row.status, row.synthetic))


class Brief(NamedTuple):
    """What a long list of cases prints of a row: its label's parts, status and reason."""

    id: str
    trial: int
    status: str
    reason: str
    cached_from: str | None


def brief_of(row: CaseRow) -> Brief:
    return Brief(row.id, row.trial, row.status, row.reason, row.cached_from)


def briefs_where(rows: Sequence[CaseRow], keep: Callable[[str, bool], bool]) -> Iterator[Brief]:
    """``rows_where(rows, keep)`` as briefs; rows read from a store (they have a
    ``briefs_where``) are then mostly read without making them."""
    where = getattr(rows, "briefs_where", None)
    if where is not None:
        picked: Iterator[Brief] = where(keep)
        return picked
    return map(brief_of, rows_where(rows, keep))


def rows_of(
    rows: Sequence[CaseRow], keep: Callable[[str, bool], bool], picked: Sequence[Brief]
) -> list[CaseRow]:
    """The rows that the first briefs of ``briefs_where(rows, keep)``, ``picked``, were
    told from."""
    at = getattr(rows, "rows_at", None)
    if at is not None:
        made: list[CaseRow] = at(picked)
        return made
    return list(islice(rows_where(rows, keep), len(picked)))


def chunked(values: Iterable[T], size: int) -> Iterator[list[T]]:
    """``values`` in lists of ``size`` (the last may hold fewer), in order."""
    whole = iter(values)
    while chunk := list(islice(whole, size)):
        yield chunk


def rendered_chunks(
    rows: Sequence[CaseRow], size: int, render: Callable[[list[tuple[Any, ...]]], T]
) -> Iterator[T] | None:
    """``render`` of each ``size`` rows' value tuples in order, for rows held as values
    (``CaseRows``; rows read from a store render in two processes when large: see
    ``StoredRows.rendered``); None for rows held otherwise."""
    own = getattr(rows, "rendered", None)
    if own is None or not callable(own):
        return None
    return own(size, render)  # type: ignore[no-any-return]


def rendered_texts(
    rows: Sequence[CaseRow], size: int, render: Callable[[list[tuple[Any, ...]]], str], joint: str
) -> Iterator[str | WrittenText] | None:
    """``rendered_chunks`` of texts, where those a second process made may come as the
    one ``WrittenText`` it wrote them to, each after ``joint`` (``StoredRows``); None for
    rows held otherwise."""
    own = getattr(rows, "rendered_texts", None)
    if own is None or not callable(own):
        return None
    return own(size, render, joint)  # type: ignore[no-any-return]


def close_rows(report: Report) -> None:
    """Stop what a report's rows hold open (a second process making them, a store they
    are read from as they are rendered); nothing for rows held in memory."""
    close = getattr(report.cases, "close", None)
    if callable(close):
        close()
