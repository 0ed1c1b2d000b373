"""The case rows of a report made by two processes (``scoring._two_processes``), rendered by both.

This process holds the rows of its own cases, the second process those of the cases past
the middle of the dataset. A renderer reads the rows in chunks of its size
(``rendered_chunks``), and the chunks must be those one process would render, byte for
byte: this process's row count is seldom a multiple of the chunk size, so the second
process, once asked (the size and how to render a chunk: ``Asked``), hands back just
enough of its first rows to complete this process's last chunk and renders the rest in
chunks itself. This process renders its own chunks and that one, then reads the second
process's chunks back in order once it has ended. A second process that cannot be asked
or does not finish (an exception, a signal) gives nothing back: its rows are then made
here again, from the dataset's text and the result lines, as it made them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar, overload

from assay.report import CaseRow, chunked, row_of

T = TypeVar("T")

Render = Callable[[list[tuple[Any, ...]]], Any]


class Asked(NamedTuple):
    """What the second process is asked for: its first ``handed`` rows as they are, then
    ``render`` of each ``size`` of the rest (none without ``render``)."""

    handed: int
    size: int
    render: Render | None


class SecondRows(Protocol):
    """The second process, holding its rows until it is asked for them (once)."""

    def ask(self, asked: Asked) -> bool:
        """Send it what it is asked for; False when that cannot be done."""

    def items(self) -> Iterator[Any] | None:
        """Once it has ended: its first rows, then its chunks rendered, when it made
        them all; None otherwise."""

    def close(self) -> None:
        """Stop it if it is still working, and drop what it wrote."""


class HalvedRows(Sequence[CaseRow]):
    """A report's case rows: this process's ``mine`` (value tuples), then the ``count``
    rows of the ``second`` process, or, when it gives them nothing, those ``again``
    makes here. Close it (or render it) so that the second process never outlives the
    command."""

    def __init__(
        self,
        mine: list[tuple[Any, ...]],
        count: int,
        second: SecondRows,
        again: Callable[[], list[tuple[Any, ...]]],
    ) -> None:
        self._mine = mine
        self._count = count
        self._second = second
        self._again = again
        self._theirs: list[tuple[Any, ...]] | None = None

    def __len__(self) -> int:
        return len(self._mine) + self._count

    @overload
    def __getitem__(self, index: int) -> CaseRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseRow]: ...

    def __getitem__(self, index: int | slice) -> CaseRow | list[CaseRow]:
        if isinstance(index, slice):
            return [row_of(v) for v in [*self._mine, *self._whole()][index]]
        at = index + len(self) if index < 0 else index
        if not 0 <= at < len(self):
            raise IndexError("case row index out of range")
        mine = self._mine
        return row_of(mine[at] if at < len(mine) else self._whole()[at - len(mine)])

    def __iter__(self) -> Iterator[CaseRow]:
        return map(row_of, self.values())

    def values(self) -> Iterator[tuple[Any, ...]]:
        """Each row's values in ``ROW_FIELDS`` order, without making the rows."""
        return itertools.chain(self._mine, self._whole())

    def rendered(self, size: int, render: Callable[[list[tuple[Any, ...]]], T]) -> Iterator[T]:
        """``render`` of each ``size`` rows' values in order (the last chunk may hold
        fewer), the second process's later chunks rendered by it."""
        own = len(self._mine) - len(self._mine) % size
        handed = (size - len(self._mine) % size) % size
        if self._theirs is not None or not self._second.ask(Asked(handed, size, render)):
            return map(render, chunked(self.values(), size))
        return self._joined(own, handed, size, render)

    def _joined(
        self, own: int, handed: int, size: int, render: Callable[[list[tuple[Any, ...]]], T]
    ) -> Iterator[T]:
        mine = self._mine
        try:
            yield from map(render, chunked(itertools.islice(mine, own), size))
            made = self._second.items()
            first = next(made, None) if made is not None else None
            if made is not None and first is not None and len(first) == min(handed, self._count):
                if own < len(mine) or first:
                    yield render([*mine[own:], *first])
                yield from made
                return
            # It failed (an exception, a signal): its rows are made here instead.
            theirs = self._made_here()
            yield from map(render, chunked(itertools.chain(mine[own:], theirs), size))
        finally:
            self._second.close()

    def _whole(self) -> list[tuple[Any, ...]]:
        """The second process's rows, handed back whole (or made here)."""
        if self._theirs is None:
            theirs = None
            if self._second.ask(Asked(self._count, 1, None)):
                made = self._second.items()
                theirs = next(made, None) if made is not None else None
            self._second.close()
            if theirs is None or len(theirs) != self._count:
                theirs = self._made_here()
            self._theirs = theirs
        return self._theirs

    def _made_here(self) -> list[tuple[Any, ...]]:
        theirs = self._again()
        if len(theirs) != self._count:
            raise OSError("the second half of the case rows could not be made")
        return theirs

    def close(self) -> None:
        """Stop the second process if it is still working."""
        self._second.close()

    def __repr__(self) -> str:
        return f"HalvedRows({len(self)} rows)"
