"""A report's case rows cut to those its text and Markdown renderings list: every row but
those of the real cases that passed (``KeptRows``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, overload

from assay.report._model import CaseRow
from assay.report._rows import ROW_FIELDS, Brief, row_of

Keep = Callable[[str, bool], bool]

_ID = ROW_FIELDS.index("id")
_TRIAL = ROW_FIELDS.index("trial")
_SYNTHETIC = ROW_FIELDS.index("synthetic")
_STATUS = ROW_FIELDS.index("status")
_REASON = ROW_FIELDS.index("reason")
_CACHED_FROM = ROW_FIELDS.index("cached_from")


def kept_values(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows' values (in ``ROW_FIELDS`` order) that ``KeptRows`` keeps, in order."""
    return [v for v in rows if v[_STATUS] != "passed" or v[_SYNTHETIC]]


class KeptRows(Sequence[CaseRow]):
    """Of a report's ``count`` case rows, those ``kept_values`` keeps (``kept``, in order):
    what the text and Markdown reports list (``rows_where``, ``briefs_where`` and
    ``rows_of`` pick them). Reading every row is refused: the passing ones are gone."""

    __slots__ = ("_count", "_kept")

    def __init__(self, kept: list[tuple[Any, ...]], count: int) -> None:
        self._kept = kept
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> CaseRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseRow]: ...

    def __getitem__(self, index: int | slice) -> CaseRow | list[CaseRow]:
        self._whole()

    def __iter__(self) -> Iterator[CaseRow]:
        self._whole()

    def _whole(self) -> NoReturn:
        raise TypeError("only the rows of cases not passed, and of synthetic ones, are kept")

    def _picked(self, keep: Keep) -> Iterator[tuple[Any, ...]]:
        if keep("passed", False):
            raise ValueError("the rows of real cases that passed are not kept")
        return (v for v in self._kept if keep(v[_STATUS], v[_SYNTHETIC]))

    def where(self, keep: Keep) -> Iterator[CaseRow]:
        """The rows ``keep`` wants (from a row's status and synthetic flag), in order; a
        ``ValueError`` if it wants a passing real case's."""
        return map(row_of, self._picked(keep))

    def briefs_where(self, keep: Keep) -> Iterator[Brief]:
        """``where(keep)``'s rows as briefs."""
        return (
            Brief(v[_ID], v[_TRIAL], v[_STATUS], v[_REASON], v[_CACHED_FROM])
            for v in self._picked(keep)
        )

    def rows_at(self, picked: Sequence[Brief]) -> list[CaseRow]:
        """The rows ``picked`` (briefs ``briefs_where`` gave) were told from, in order."""
        wanted = {(b.id, b.trial) for b in picked}
        if not wanted:
            return []
        return [row_of(v) for v in self._kept if (v[_ID], v[_TRIAL]) in wanted]

    def __repr__(self) -> str:
        return f"KeptRows({len(self._kept)} of {self._count} rows)"
