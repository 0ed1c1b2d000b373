"""A large stored run's rows rendered by two processes.

On Linux, with a second core, the rows of a run of more than ``FORKED_ABOVE``
case-trials are made and rendered (as the JSON, HTML and JUnit reports render them) by
this process and a fork of it: this one the earlier rows, the fork the later ones, read
back in order once it has ended (``assay._fast.forked``). A report that will render every row
starts the fork before its figures are counted (``Ahead``); it makes rows until it is told
how to render them. The chunks are those one process would render, byte for byte: the
fork's first row is a multiple of the chunk size. A fork that fails gives nothing back,
and this process makes its rows itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from assay._controls import escape_controls
from assay._fast.forked import Forked, Request, Texts
from assay._written import WrittenText
from assay.errors import StoreError
from assay.grading import Grader
from assay.report import chunked
from assay.runs._case_items import Cases
from assay.runs._streamed import StoredRows
from assay.store import RunInfo, RunStore, read_case_ids, read_case_index, rows_named

T = TypeVar("T")

FORKED_ABOVE = 100_000
"""A run of more rows than this has its rows rendered by two processes (``rendered``):
below it, starting a process costs more than it saves."""
_OWN_SHARE = 0.46
"""The share of the rows this process renders itself; the fork renders the rest (it
starts with the run's cases read, which this process reads before it starts it)."""
_AHEAD_SHARE = 0.45
"""The share of the rows this process renders itself when the fork started making the
rest while the figures were counted."""
_ALIGN = 20_000
"""Where the fork started ahead begins: a multiple of every renderer's chunk size."""
_HELD_AT_MOST = 100_000
"""Rows the fork started ahead makes before it is told how to render them, at most."""
_INHERITED: list[object] = []
"""In a fork, the connection pools it inherited, held so that they are never closed."""


def own_connections(store: RunStore) -> None:
    """In a fork: open connections of its own; those it inherited are kept as they are
    (never used, nor closed: the fork ends by os._exit)."""
    _INHERITED.append(store.engine.pool)
    store.engine.dispose(close=False)


class Ahead:
    """A stored run's later rows, from ``split`` on, made by a forked process started
    before the report's figures are counted; once ``StoredRows.rendered`` asks it, it
    renders them as asked."""

    def __init__(self, forked: Forked[Any], cases: int, snapshot: str, split: int) -> None:
        self.forked = forked
        self.cases = cases
        self.snapshot = snapshot
        self.split = split

    @classmethod
    def start(cls, store: RunStore, info: RunInfo, grader: Grader) -> Ahead | None:
        """Start making run ``info``'s later rows, when it is large and has a case index
        and a second core is there; None otherwise. Only the cases' snapshot is read
        first, once, shared with the fork: each process reads the rest (the case ids and
        hashes) while the other is at work."""
        try:
            cases = case_count_of(store, info.id)
            if cases is None or cases * info.trials <= FORKED_ABOVE:
                return None
            count = cases * info.trials
            rows = StoredRows(store, info, grader, count)
            snapshot = store.cases_snapshot(info.id)
        except StoreError:
            return None  # the figures, counted next, say what is damaged
        split = round(count * _AHEAD_SHARE / _ALIGN) * _ALIGN

        def later(request: Request) -> Iterable[Any] | Texts:
            own_connections(store)
            ids = case_ids_counted(store, info.id, cases)
            made = rows.indexed(ids, rows.read_cases(cases, snapshot), split)
            held: list[tuple[Any, ...]] = []
            asked = None
            for values in made:
                held.append(values)
                if len(held) % 1_000 == 0:
                    asked = request.get(wait=len(held) >= _HELD_AT_MOST)
                    if asked is not None:
                        break
            if asked is None:
                asked = request.get(wait=True)
            size, render, joint = asked
            chunks = map(render, chunked(itertools.chain(held, made), size))
            return chunks if joint is None else Texts(chunks, joint, escape_controls)

        forked = Forked.start(later)
        return None if forked is None else cls(forked, cases, snapshot, split)

    def close(self) -> None:
        self.forked.close()


def case_count_of(store: RunStore, run_id: str) -> int | None:
    """How many cases run ``run_id`` ran, when it has a case index."""
    with rows_named(store.url, run_id), store.engine.connect() as conn:
        index = read_case_index(conn, run_id)
    return None if index is None else len(index.codes)


def case_ids_counted(store: RunStore, run_id: str, count: int) -> list[str]:
    """The case ids of run ``run_id``'s case index, known to hold ``count`` cases (any
    other number of ids raises the ``StoreError`` that names the damage)."""
    with rows_named(store.url, run_id), store.engine.connect() as conn:
        return read_case_ids(conn, run_id, count)


def rendered(
    rows: StoredRows,
    size: int,
    render: Callable[[list[tuple[Any, ...]]], T],
    ahead: Ahead | None = None,
) -> Iterator[T]:
    """``render`` of each ``size`` of ``rows``' values in order (the last chunk may hold
    fewer). For a run of more than ``FORKED_ABOVE`` rows with a case index, on a machine
    with a second core, a forked process makes and renders the later chunks while this
    one makes and renders the earlier ones: the one started ``ahead`` when it can be
    asked to, else one started now."""
    return _rendered(rows, size, render, ahead, None)  # type: ignore[return-value]


def rendered_texts(
    rows: StoredRows,
    size: int,
    render: Callable[[list[tuple[Any, ...]]], str],
    joint: str,
    ahead: Ahead | None = None,
) -> Iterator[str | WrittenText]:
    """``rendered``'s texts, those a fork made (each after ``joint``) as the one
    ``WrittenText`` it wrote them to: copied to the output by the kernel, never read
    back by this process."""
    return _rendered(rows, size, render, ahead, joint)


def _rendered(
    rows: StoredRows,
    size: int,
    render: Callable[[list[tuple[Any, ...]]], T],
    ahead: Ahead | None,
    joint: str | None,
) -> Iterator[T | WrittenText]:
    if ahead is not None:
        if ahead.split == 0:
            joint = None  # the fork's first text is the first: no joint before it
        if ahead.split % size == 0 and ahead.forked.ask((size, render, joint)):
            return _joined_ahead(rows, ahead, size, render, joint)
        ahead.close()
    ids = rows.case_ids() if len(rows) > FORKED_ABOVE else None
    if ids is None:
        return map(render, chunked(rows.values(), size))
    return _forked(rows, ids, size, render, joint)


def _forked(
    rows: StoredRows,
    ids: list[str],
    size: int,
    render: Callable[[list[tuple[Any, ...]]], T],
    joint: str | None,
) -> Iterator[T | WrittenText]:
    cases = rows.read_cases(len(ids))  # read once, shared with the fork
    split = round(len(ids) * rows.info.trials * _OWN_SHARE / size) * size
    if split == 0:
        joint = None  # the fork's first text is the first: no joint before it

    def later(_: Request) -> Iterable[T] | Texts:
        own_connections(rows.store)
        chunks = map(render, chunked(rows.indexed(ids, cases, split), size))
        return chunks if joint is None else Texts(chunks, joint, escape_controls)  # type: ignore[arg-type]

    other = Forked.start(later)
    if other is None:
        return map(render, chunked(rows.indexed(ids, cases), size))
    return _joined(rows, other, ids, cases, split, size, render, joint)


def _joined_ahead(
    rows: StoredRows,
    ahead: Ahead,
    size: int,
    render: Callable[[list[tuple[Any, ...]]], T],
    joint: str | None,
) -> Iterator[T | WrittenText]:
    """``_joined`` of the rows ``ahead`` makes after ``ahead.split``: the case ids and
    hashes read here once it is at work (the fork reads its own)."""
    try:
        ids = case_ids_counted(rows.store, rows.info.id, ahead.cases)
        cases = rows.read_cases(ahead.cases, ahead.snapshot)
    except BaseException:
        ahead.close()
        raise
    yield from _joined(rows, ahead.forked, ids, cases, ahead.split, size, render, joint)


def _joined(
    rows: StoredRows,
    other: Forked[T],
    ids: list[str],
    cases: Cases,
    split: int,
    size: int,
    render: Callable[[list[tuple[Any, ...]]], T],
    joint: str | None,
) -> Iterator[T | WrittenText]:
    """The chunks of the rows before ``split`` made here, then those ``other`` made of
    the rest (as the file it wrote them to, when they are texts after ``joint``)."""
    with other:
        yield from map(render, chunked(rows.indexed(ids, cases, 0, split), size))
        if joint is not None:
            written = other.written()
            if written is not None:
                yield WrittenText(written)
                return
        else:
            made = other.items()
            if made is not None:
                yield from made
                return
        # The fork failed (a damaged row, a signal): its rows are made here, where what
        # went wrong, if anything, is said the usual way.
        yield from map(render, chunked(rows.indexed(ids, cases, split), size))
