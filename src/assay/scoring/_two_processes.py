"""A large usual dataset scored by two processes, each taking part of its cases end to end.

Most of ``assay score``'s work on a million cases is done case by case: decoding and
checking each case, hashing its canonical text, making its row from its result line and
writing the row's JSON. Once the dataset's text is read, a forked process takes the cases
past a line break (``FIRST_PART`` of the way in) through all of that, while this process
does the cases before it. The forked process hands back what the report's figures read
of its cases (``CaseTally``: each case's status, whether it answered, …), their canonical
texts (the dataset's version is the hash of every case's, in order) and the rows the
report needs of it: for the JSON report none (it then writes its rows' JSON text, which
follows this process's rows: ``halved_json``), for the text and Markdown reports those
they list (``halved_listed``), for JUnit XML and HTML none either: when the report is
rendered, it renders its rows itself in the renderer's chunks, but for the few that
complete this process's last chunk (``halved_whole``, ``HalvedRows``).

Anything unusual (a case or a result line that is not the usual one, a repeated or an
unknown id, a changelog beside the dataset, a process that did not finish) gives nothing
back before anything is written, and the caller scores the usual way, which says what,
if anything, is wrong.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple, cast, overload

from assay._fast.forked import Child, Request, pickled, read_items, send, write_items
from assay._written import WrittenText
from assay.errors import InputFormatError
from assay.grading import CaseResult, StructuredGrader
from assay.load import ResultsAside, changelog_path, read_text
from assay.metrics import IntervalSetting, summarize_results
from assay.report import (
    CaseRow,
    KeptRows,
    Report,
    assemble_from_facts,
    chunked,
    dataset_info,
    kept_values,
    split_blocks,
)
from assay.scoring._dataset_part import CaseTally, Scored, part_cases, part_scored, write_rows
from assay.scoring._second_rows import Asked, HalvedRows

HALVES_BYTES = 4 * 2**20
"""Datasets at least this large are scored by two processes; a smaller one is scored
quicker than a process is started and its half handed back."""


class WrittenRows(Sequence[CaseRow]):
    """A report's case rows held as their JSON text: this process's rows written to
    ``mine``, then those the second process writes. They are rendered only into the JSON
    report (``rendered_texts``). Close them (or the report's rows: ``close_rows``) so that
    the second process never outlives the command."""

    def __init__(self, count: int, mine: IO[bytes], second: _SecondHalf) -> None:
        self._count = count
        self._mine = mine
        self._second = second

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> CaseRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseRow]: ...

    def __getitem__(self, index: int | slice) -> CaseRow | list[CaseRow]:
        raise TypeError("these case rows are held as JSON text: render the JSON report")

    def __iter__(self) -> Iterator[CaseRow]:
        raise TypeError("these case rows are held as JSON text: render the JSON report")

    def rendered_texts(
        self, size: int, render: Callable[[list[tuple[Any, ...]]], str], joint: str
    ) -> Iterator[str | WrittenText]:
        """The rows' JSON text as the two files it was written to; the second raises
        ``OSError`` when the second process did not write its rows."""
        yield WrittenText(self._mine)
        yield WrittenText(self._second.rows_written())

    def close(self) -> None:
        """Stop the second process if it is still working, and drop what was written."""
        self._second.close()
        self._mine.close()

    def __repr__(self) -> str:
        return f"WrittenRows({self._count} rows)"


def may_halve(dataset: Path) -> bool:
    """Whether ``halved_json`` may score ``dataset``: a JSON Lines file of at least
    ``HALVES_BYTES`` without a changelog."""
    if dataset.suffix.lower() != ".jsonl":
        return False

    try:
        return dataset.stat().st_size >= HALVES_BYTES and not changelog_path(dataset).exists()
    except OSError:
        return False


Keep = Callable[[list[tuple[Any, ...]]], list[tuple[Any, ...]]]
"""Of one part's rows (value tuples, in order), those kept for the report."""


def halved_json(dataset: Path, aside: ResultsAside, interval: IntervalSetting) -> Report | None:
    """The report of scoring the results ``aside`` reads against the JSON Lines dataset
    ``dataset``, made by two processes, its rows held as their JSON text
    (``WrittenRows``); None, having said nothing, when the dataset is small or either
    file is not the usual one."""
    with contextlib.ExitStack() as undo:
        rows = undo.enter_context(tempfile.TemporaryFile())

        def written(mine: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            write_rows(mine, rows, joint="")
            return []

        made = _halved(dataset, aside, interval, written, None)
        if made is None:
            return None
        report, _, second, _ = made
        undo.pop_all()
    return report.model_copy(update={"cases": WrittenRows(_rows_of(report), rows, second)})


def halved_listed(dataset: Path, aside: ResultsAside, interval: IntervalSetting) -> Report | None:
    """The report of scoring the results ``aside`` reads against the JSON Lines dataset
    ``dataset``, made by two processes, with only the case rows its text and Markdown
    renderings list (``KeptRows``); None, having said nothing, when the dataset is small
    or either file is not the usual one."""
    made = _halved(dataset, aside, interval, kept_values, kept_values)
    if made is None:
        return None
    report, rows, second, _ = made
    second.close()  # it has handed back all it had to
    return report.model_copy(update={"cases": KeptRows(rows, _rows_of(report))})


def halved_whole(dataset: Path, aside: ResultsAside, interval: IntervalSetting) -> Report | None:
    """The report of scoring the results ``aside`` reads against the JSON Lines dataset
    ``dataset``, made by two processes, with all its case rows (``HalvedRows``: the
    second process renders most of its own); None, having said nothing, when the dataset
    is small or either file is not the usual one. Close its rows once it is rendered, and
    ``aside`` after them (a second process that fails has its rows made again here from
    the lines it read)."""
    made = _halved(dataset, aside, interval, _every, _none, asked=True)
    if made is None:
        return None
    report, rows, second, again = made
    halved = HalvedRows(rows, _rows_of(report) - len(rows), second, again)
    return report.model_copy(update={"cases": halved})


def _rows_of(report: Report) -> int:
    """A report's case rows: one for each case, real or synthetic."""
    return report.total + (report.synthetic.total if report.synthetic is not None else 0)


def _every(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return rows


def _none(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return []


def _halved(
    dataset: Path,
    aside: ResultsAside,
    interval: IntervalSetting,
    set_aside: Keep,
    handed: Keep | None,
    asked: bool = False,
) -> tuple[Report, list[tuple[Any, ...]], _SecondHalf, MadeAgain] | None:
    """The report of both processes' cases without its rows (``_first_half``), the rows
    kept of this process's (``set_aside``) followed by those the second process hands
    back (``handed``), the second process, left writing its rows' JSON text when
    ``handed`` is None, or waiting to be ``asked`` for its rows (``_SecondHalf.ask``), and
    what makes its rows here instead (``_made_again``)."""
    if not may_halve(dataset):
        return None
    try:
        text = read_text(dataset)
    except InputFormatError:
        return None
    middle = _middle(text)
    if middle is None:
        return None
    plain = "\\" not in text
    second = _SecondHalf.start(text, middle, plain, aside, handed, asked)
    if second is None:
        return None
    try:
        made = _first_half(dataset, text, middle, plain, aside, interval, second, set_aside)
    except BaseException:
        second.close()
        raise
    if made is None:
        second.close()
        return None
    report, rows = made
    return report, rows, second, functools.partial(_made_again, text, middle, plain, aside)


MadeAgain = Callable[[], list[tuple[Any, ...]]]


def _made_again(text: str, middle: int, plain: bool, aside: ResultsAside) -> list[tuple[Any, ...]]:
    """The second process's rows made here, as it made them (the same cases and result
    lines); an ``OSError`` when they cannot be."""
    cases = part_cases(text, middle, len(text), plain)
    half = part_scored(cases, aside.lines_read_again()) if cases is not None else None
    if half is None:
        raise OSError("the second half of the case rows could not be made")
    return half.rows


def _middle(text: str) -> int | None:
    """Where the second process's part of ``text`` begins: past the first line break at
    or after ``FIRST_PART`` of it (before it, when that one ends the text); None for a
    single line."""
    half = int(len(text) * FIRST_PART)
    middle = text.find("\n", half) + 1
    if 0 < middle < len(text):
        return middle
    middle = text.rfind("\n", 0, half) + 1
    return middle if middle > 0 else None


FIRST_PART = 0.42
"""The share of the dataset's text this process scores: less than half, as it alone
reads the text, sums the report's figures and writes the report."""


def _first_half(
    dataset: Path,
    text: str,
    middle: int,
    plain: bool,
    aside: ResultsAside,
    interval: IntervalSetting,
    second: _SecondHalf,
    set_aside: Keep,
) -> tuple[Report, list[tuple[Any, ...]]] | None:
    """The report of this process's cases (those before ``middle``) and the second
    process's, without its rows, and the rows ``set_aside`` keeps of this process's
    followed by those the second process hands back; None when either part is not the
    usual one."""
    cases = part_cases(text, 0, middle - 1, plain)
    if cases is None:
        return None
    lines = aside.plain_lines()
    if lines is None or not second.go():
        return None
    mine = part_scored(cases, lines)
    if mine is None:
        return None
    mine = mine._replace(rows=set_aside(mine.rows))
    theirs = second.scored()
    if theirs is None or mine.read != theirs.read:
        return None
    if mine.matched + theirs.matched != mine.read:
        return None  # a line names a case of neither half
    if not {c.id for c in cases.cases}.isdisjoint(f[0] for f in theirs.facts):
        return None  # an id of both halves
    del cases
    whole = hashlib.sha256(b"[")
    for part in (mine.canonical, b",", theirs.canonical, b"]"):
        whole.update(part)
    version = f"sha256:{whole.hexdigest()}"
    return _report(dataset.stem, version, mine, theirs, interval), [*mine.rows, *theirs.rows]


def _report(
    name: str, version: str, mine: Scored, theirs: Scored, interval: IntervalSetting
) -> Report:
    """``streamed_lines_report``'s report of both halves' cases, without its rows."""
    tallies = [*map(CaseTally._make, mine.facts), *map(CaseTally._make, theirs.facts)]
    graded = cast("Sequence[CaseResult]", tallies)
    summary = summarize_results(graded, interval=interval)
    real = [t for t in tallies if not t.synthetic]
    structured = mine.structured or theirs.structured
    graders = {(StructuredGrader.name, StructuredGrader.version)} if structured else set()
    return assemble_from_facts(
        dataset_info(name, version, None, len(real), (t.source_revision for t in tallies)),
        [t.id for t in tallies if t.synthetic] if summary.synthetic is not None else [],
        sum(1 for t in real if t.split == "heldout"),
        summary,
        [],
        graders=sorted(graders - {("assay", "1")}),
        splits=split_blocks(graded, interval, None),
        dimensions={},
        cache=None,
        judged_usage=None,
    )


class _SecondHalf:
    """The process scoring the dataset's cases past ``_middle``. It starts on them at
    once, scores them against the result lines once told to (``go``), hands back the
    ``Scored`` (``scored``) with the rows ``handed`` keeps of its own, or, without
    ``handed``, without rows, then writes its rows' JSON text (``rows_written``); or,
    started to be asked, waits to be asked for its rows (``ask``: some as they are, the
    rest rendered) and writes them (``items``). Close it so that it never outlives the
    command."""

    def __init__(
        self,
        child: Child,
        go: int,
        ready: int,
        asks: int | None,
        scored: IO[bytes],
        text: IO[bytes],
    ) -> None:
        self._child = child
        self._go = go
        self._ready = ready
        self._asks = asks
        self._scored = scored
        self._text = text

    @classmethod
    def start(
        cls,
        text: str,
        middle: int,
        plain: bool,
        aside: ResultsAside,
        handed: Keep | None,
        asked: bool,
    ) -> _SecondHalf | None:
        """The process started on ``text[middle:]``, or None when none could be."""
        with contextlib.ExitStack() as undo:
            try:
                scored = undo.enter_context(tempfile.TemporaryFile())
                rows = undo.enter_context(tempfile.TemporaryFile())
                go_read, go = os.pipe()
                undo.callback(os.close, go_read)
                undo.callback(os.close, go)
                ready, ready_write = os.pipe()
                undo.callback(os.close, ready)
                undo.callback(os.close, ready_write)
                asked_read, asks = os.pipe() if asked else (None, None)
                for fd in (asked_read, asks):
                    if fd is not None:
                        undo.callback(os.close, fd)
            except OSError:
                return None
            ends = _Ends(go_read, ready_write, asked_read)
            work = functools.partial(
                _second_half, text, middle, plain, aside, ends, scored, rows, handed
            )
            ours = [fd for fd in (go, ready, asks) if fd is not None]
            child = Child.start(work, ours, [fd for fd in ends if fd is not None])
            if child is None:
                return None
            undo.pop_all()
        return cls(child, go, ready, asks, scored, rows)

    def go(self) -> bool:
        """Tell the process to read the result lines (once this one has them); False
        when it has ended already."""
        try:
            os.write(self._go, b"1")
        except OSError:
            return False
        return True

    def scored(self) -> Scored | None:
        """Its half scored (without the rows), once it has it; None when it gave up."""
        try:
            said = os.read(self._ready, 1)
        except OSError:
            return None
        if said != b"1":
            return None
        self._scored.seek(0)
        half: Scored = pickle.load(self._scored)
        return half

    def ask(self, asked: Asked) -> bool:
        """Ask it for its rows (once): its first ``asked.handed`` as they are, the rest
        rendered; False when it cannot be asked (it was not started to be, it was asked
        already, it has ended) or not for that (the renderer does not pickle: it may
        still be asked for its rows whole)."""
        if self._asks is None:
            return False
        data = pickled(asked)
        if data is None:
            return False  # still to be asked
        asks, self._asks = self._asks, None
        return send(asks, data)

    def items(self) -> Iterator[Any] | None:
        """Once it has ended, what it was asked for (``ask``): its first rows, then its
        chunks rendered, read back as they are iterated, when it made them all; None
        otherwise."""
        if not self._child.reaped():
            return None
        self._text.seek(0)
        return read_items(self._text)

    def rows_written(self) -> IO[bytes]:
        """The file of its rows' text (``write_rows``, following this process's rows),
        once it has written it all; an ``OSError`` when it did not."""
        if not self._child.reaped():
            raise OSError("the second half of the case rows was not written")
        return self._text

    def close(self) -> None:
        """Stop the process if it is still working, and drop what it wrote."""
        self._child.stop()
        if self._asks is not None:  # never asked: it ends without rendering anything
            os.close(self._asks)
            self._asks = None
        for fd in (self._go, self._ready):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._scored.close()
        self._text.close()


class _Ends(NamedTuple):
    """The forked process's ends of its pipes: told to go on, saying it has scored its
    half, and asked for its rows (None when it will not be)."""

    go: int
    ready: int
    asked: int | None


def _second_half(
    text: str,
    middle: int,
    plain: bool,
    aside: ResultsAside,
    ends: _Ends,
    scored: IO[bytes],
    rows: IO[bytes],
    handed: Keep | None,
) -> int:  # pragma: no cover - run by the forked process
    """The forked process's work: 0 when it wrote its half whole, else why not."""
    cases = part_cases(text, middle, len(text), plain)
    del text
    if cases is None or os.read(ends.go, 1) != b"1":
        os.write(ends.ready, b"0")
        return 3
    half = part_scored(cases, aside.lines_read_again())
    del cases
    if half is None:
        os.write(ends.ready, b"0")
        return 3
    back = half._replace(rows=handed(half.rows) if handed is not None else [])
    pickle.dump(back, scored, protocol=pickle.HIGHEST_PROTOCOL)
    scored.flush()
    os.write(ends.ready, b"1")
    if ends.asked is not None:
        try:
            asked: Asked = Request(ends.asked).get(wait=True)
        except EOFError:
            return 0  # not asked: the command ended, or made its report otherwise
        _write_asked(half.rows, asked, rows)
    elif handed is None:
        write_rows(half.rows, rows, joint=",\n")
    return 0


def _write_asked(
    rows: list[tuple[Any, ...]], asked: Asked, out: IO[bytes]
) -> None:  # pragma: no cover - run by the forked process
    """Write, pickled one after the other (``write_items``), the first ``asked.handed`` of
    ``rows``, then ``asked.render`` of each ``asked.size`` of the rest."""
    later: Iterator[Any] = iter(())
    if asked.render is not None:
        rest = chunked(itertools.islice(rows, asked.handed, None), asked.size)
        later = map(asked.render, rest)
    write_items(itertools.chain([rows[: asked.handed]], later), out)
