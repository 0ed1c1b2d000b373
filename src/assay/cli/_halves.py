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
they list (``halved_listed``), for JUnit XML and HTML all of them (``halved_whole``).

Anything unusual (a case or a result line that is not the usual one, a repeated or an
unknown id, a changelog beside the dataset, a process that did not finish) gives nothing
back before anything is written, and the caller scores the usual way, which says what,
if anything, is wrong.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, cast

from assay._forked import Child
from assay.cli._output import WrittenText
from assay.cli._part import CaseTally, Scored, part_cases, part_scored, write_rows
from assay.errors import InputFormatError
from assay.grading import CaseResult
from assay.grading._structured import StructuredGrader
from assay.load._aside import ResultsAside
from assay.load._records import read_text
from assay.metrics import IntervalSetting, summarize_results
from assay.report._build import _split_blocks, assemble_from_facts, dataset_info
from assay.report._kept import KeptRows, kept_values
from assay.report._model import Report
from assay.report._rows import CaseRows
from assay.report.render.json import json_frame_parts

HALVES_BYTES = 4 * 2**20
"""Datasets at least this large are scored by two processes; a smaller one is scored
quicker than a process is started and its half handed back."""


class HalvedReport:
    """A report made by two processes, without its case rows (``report``), and its whole
    JSON text (``pieces``). Close it (a ``with`` block) so that the second process never
    outlives the command."""

    def __init__(
        self, report: Report, head: str, rows: IO[bytes], tail: str, second: _SecondHalf
    ) -> None:
        self.report = report
        self._head, self._rows, self._tail = head, rows, tail
        self._second = second

    def pieces(self) -> Iterator[str | WrittenText]:
        """The report's JSON text (``render_json_chunks``'s, its control characters
        escaped) in pieces, once; the piece past this process's rows raises ``OSError``
        when the second process did not write its rows."""
        yield self._head
        yield WrittenText(self._rows)
        yield WrittenText(self._second.rows_written())
        yield self._tail

    def close(self) -> None:
        """Stop the second process if it is still working, and drop what was written."""
        self._second.close()
        self._rows.close()

    def __enter__(self) -> HalvedReport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def may_halve(dataset: Path) -> bool:
    """Whether ``halved_json`` may score ``dataset``: a JSON Lines file of at least
    ``HALVES_BYTES`` without a changelog."""
    if dataset.suffix.lower() != ".jsonl":
        return False
    from assay.load._changelog import changelog_path

    try:
        return dataset.stat().st_size >= HALVES_BYTES and not changelog_path(dataset).exists()
    except OSError:
        return False


Keep = Callable[[list[tuple[Any, ...]]], list[tuple[Any, ...]]]
"""Of one part's rows (value tuples, in order), those kept for the report."""


def halved_json(
    dataset: Path, aside: ResultsAside, interval: IntervalSetting
) -> HalvedReport | None:
    """The JSON report of scoring the results ``aside`` reads against the JSON Lines
    dataset ``dataset``, made by two processes; None, having said nothing, when the
    dataset is small or either file is not the usual one."""
    with contextlib.ExitStack() as undo:
        rows = undo.enter_context(tempfile.TemporaryFile())

        def written(mine: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            write_rows(mine, rows, joint="")
            return []

        made = _halved(dataset, aside, interval, written, None)
        if made is None:
            return None
        report, _, second = made
        head, tail = json_frame_parts(report)
        undo.pop_all()
    return HalvedReport(report, head, rows, tail, second)


def halved_listed(dataset: Path, aside: ResultsAside, interval: IntervalSetting) -> Report | None:
    """The report of scoring the results ``aside`` reads against the JSON Lines dataset
    ``dataset``, made by two processes, with only the case rows its text and Markdown
    renderings list (``KeptRows``); None, having said nothing, when the dataset is small
    or either file is not the usual one."""
    made = _halved(dataset, aside, interval, kept_values, kept_values)
    if made is None:
        return None
    report, rows, second = made
    second.close()  # it has handed back all it had to
    synthetic = report.synthetic.total if report.synthetic is not None else 0
    return report.model_copy(update={"cases": KeptRows(rows, report.total + synthetic)})


def halved_whole(dataset: Path, aside: ResultsAside, interval: IntervalSetting) -> Report | None:
    """The report of scoring the results ``aside`` reads against the JSON Lines dataset
    ``dataset``, made by two processes, with all its case rows (``CaseRows``); None,
    having said nothing, when the dataset is small or either file is not the usual one."""
    made = _halved(dataset, aside, interval, _every, _every)
    if made is None:
        return None
    report, rows, second = made
    second.close()  # it has handed back all it had to
    return report.model_copy(update={"cases": CaseRows(rows)})


def _every(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return rows


def _halved(
    dataset: Path,
    aside: ResultsAside,
    interval: IntervalSetting,
    set_aside: Keep,
    handed: Keep | None,
) -> tuple[Report, list[tuple[Any, ...]], _SecondHalf] | None:
    """The report of both processes' cases without its rows (``_first_half``), the rows
    kept of this process's (``set_aside``) followed by those the second process hands
    back (``handed``), and the second process, left writing its rows' JSON text when
    ``handed`` is None."""
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
    second = _SecondHalf.start(text, middle, plain, aside, handed)
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
    return (*made, second)


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
        splits=_split_blocks(graded, interval, None),
        dimensions={},
        cache=None,
        judged_usage=None,
    )


class _SecondHalf:
    """The process scoring the dataset's cases past ``_middle``. It starts on them at
    once, scores them against the result lines once told to (``go``), hands back the
    ``Scored`` (``scored``) with the rows ``handed`` keeps of its own, or, without
    ``handed``, without rows, then writes its rows' JSON text (``rows_written``). Close it
    so that it never outlives the command."""

    def __init__(self, pid: int, go: int, ready: int, scored: IO[bytes], text: IO[bytes]) -> None:
        self._child = Child(pid)
        self._go = go
        self._ready = ready
        self._scored = scored
        self._text = text

    @classmethod
    def start(
        cls, text: str, middle: int, plain: bool, aside: ResultsAside, handed: Keep | None
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
                pid = os.fork()
            except OSError:
                return None
            undo.pop_all()
        if pid == 0:  # pragma: no cover - the forked process, measured by its output
            status = 1
            try:
                os.close(go)
                os.close(ready)
                status = _second_half(
                    text, middle, plain, aside, go_read, ready_write, scored, rows, handed
                )
            finally:
                os._exit(status)
        os.close(go_read)
        os.close(ready_write)
        return cls(pid, go, ready, scored, rows)

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

    def rows_written(self) -> IO[bytes]:
        """The file of its rows' text (``write_rows``, following this process's rows),
        once it has written it all; an ``OSError`` when it did not."""
        if not self._child.reaped():
            raise OSError("the second half of the case rows was not written")
        return self._text

    def close(self) -> None:
        """Stop the process if it is still working, and drop what it wrote."""
        self._child.stop()
        for fd in (self._go, self._ready):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._scored.close()
        self._text.close()


def _second_half(
    text: str,
    middle: int,
    plain: bool,
    aside: ResultsAside,
    go: int,
    ready: int,
    scored: IO[bytes],
    rows: IO[bytes],
    handed: Keep | None,
) -> int:  # pragma: no cover - run by the forked process
    """The forked process's work: 0 when it wrote its half whole, else why not."""
    cases = part_cases(text, middle, len(text), plain)
    del text
    if cases is None or os.read(go, 1) != b"1":
        os.write(ready, b"0")
        return 3
    half = part_scored(cases, aside.lines_read_again())
    del cases
    if half is None:
        os.write(ready, b"0")
        return 3
    back = half._replace(rows=handed(half.rows) if handed is not None else [])
    pickle.dump(back, scored, protocol=pickle.HIGHEST_PROTOCOL)
    scored.flush()
    os.write(ready, b"1")
    if handed is None:
        write_rows(half.rows, rows, joint=",\n")
    return 0
