"""``HalvedRows``: a report's rows held by two processes read as one sequence, rendered in
the chunks one process renders, whatever the second process does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.report._model import CaseRow
from assay.report._rows import ROW_FIELDS, CaseRows, chunked
from assay.scoring._second_rows import Asked, HalvedRows


def _values(i: int) -> tuple[Any, ...]:
    row = CaseRow(
        id=f"C{i}",
        slice="s",
        expected_behavior="answer",
        outcome=None,
        status="missing",
        reason="no recorded outcome",
        grader="assay v1",
    )
    return tuple(getattr(row, name) for name in ROW_FIELDS)


class _Second:
    """The second process's part, done in this one: what ``_write_asked`` writes, or
    nothing (``fails``: it did not finish; ``refuses``: it cannot be asked)."""

    def __init__(self, rows: list[tuple[Any, ...]], fails: bool = False, refuses: bool = False):
        self.rows = rows
        self.fails, self.refuses = fails, refuses
        self.asked: list[Asked] = []
        self.closed = False

    def ask(self, asked: Asked) -> bool:
        if self.refuses or self.asked:
            return False
        self.asked.append(asked)
        return True

    def items(self) -> Iterator[Any] | None:
        if self.fails or not self.asked:
            return None
        handed, size, render = self.asked[0]
        made: list[Any] = [self.rows[:handed]]
        if render is not None:
            made += map(render, chunked(self.rows[handed:], size))
        return iter(made)

    def close(self) -> None:
        self.closed = True


def _ids(chunk: list[tuple[Any, ...]]) -> tuple[str, ...]:
    return tuple(values[0] for values in chunk)


def _halved(mine: int, theirs: int, **second: bool) -> tuple[HalvedRows, _Second, list[int]]:
    rows = [_values(i) for i in range(mine + theirs)]
    other = _Second(rows[mine:], **second)
    again: list[int] = []

    def made_again() -> list[tuple[Any, ...]]:
        again.append(theirs)
        return rows[mine:]

    return HalvedRows(rows[:mine], theirs, other, made_again), other, again


@pytest.mark.parametrize(("mine", "theirs"), [(10, 15), (12, 3), (1, 1), (8, 40), (9, 0)])
@pytest.mark.parametrize("size", [1, 3, 4, 7, 100])
def test_its_chunks_are_those_of_the_rows_held_whole(mine: int, theirs: int, size: int) -> None:
    whole = CaseRows(_values(i) for i in range(mine + theirs))
    halved, second, again = _halved(mine, theirs)
    assert list(halved.rendered(size, _ids)) == list(whole.rendered(size, _ids))
    asked = second.asked[0]
    assert (asked.size, asked.render) == (size, _ids)
    assert asked.handed == (size - mine % size) % size  # those completing its last chunk
    assert again == [] and second.closed


@pytest.mark.parametrize("second", [{"fails": True}, {"refuses": True}])
def test_rows_the_second_process_does_not_give_are_made_here_once(second: dict[str, bool]) -> None:
    whole = CaseRows(_values(i) for i in range(25))
    halved, other, again = _halved(10, 15, **second)
    assert list(halved.rendered(4, _ids)) == list(whole.rendered(4, _ids))
    assert again == [15] and other.closed


def test_it_reads_as_the_sequence_of_all_rows() -> None:
    halved, second, again = _halved(3, 4)
    assert len(halved) == 7 and "7 rows" in repr(halved)
    assert halved[0].id == "C0" and halved[5].id == "C5" and halved[-1].id == "C6"
    assert [r.id for r in halved[2:5]] == ["C2", "C3", "C4"]
    assert [r.id for r in halved] == [f"C{i}" for i in range(7)]
    assert second.asked == [Asked(4, 1, None)] and again == []  # handed back whole, once
    with pytest.raises(IndexError):
        halved[7]
    with pytest.raises(IndexError):
        halved[-8]


def test_rendered_after_it_was_read_whole_renders_the_rows_here() -> None:
    halved, second, again = _halved(5, 6)
    assert halved[10].id == "C10"
    assert list(halved.rendered(4, _ids)) == [_ids([_values(i) for i in r]) for r in _quads(11)]
    assert len(second.asked) == 1 and again == []


def _quads(count: int) -> list[range]:
    return [range(at, min(at + 4, count)) for at in range(0, count, 4)]
