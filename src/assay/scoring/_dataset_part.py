"""One part of a large usual dataset's cases scored end to end against the result lines
(``assay score`` by two processes: see ``scoring._two_processes``): the cases decoded and checked
(``PlainCase``), their hashes and canonical texts, their rows and their rows' JSON text."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import IO, Any, NamedTuple, cast

from assay._controls import escape_controls
from assay.cases import PlainCase, plain_canonical_text, plain_case
from assay.grading import Status
from assay.load import quick_line_decoder, text_lines
from assay.render.json import json_row_pieces
from assay.report import (
    GRADER_FIELD,
    OUTCOME_FIELD,
    STATUS_FIELD,
    STRUCTURED_LABEL,
    CaseRows,
    line_row,
    missing_row,
)


class CaseTally(NamedTuple):
    """What the summary and its split blocks read of one case scored once: a
    ``report._streamed.Tally`` that is its own ``case`` (with the fields of ``Case``
    they read), made from one tuple of its values."""

    id: str
    slice: str
    synthetic: bool
    split: str
    source_revision: str | None
    status: Status
    answered: bool

    @property
    def trial(self) -> int:
        """One: a case scored once."""
        return 1

    @property
    def case(self) -> CaseTally:
        """Itself: the case's fields are its own."""
        return self


class Cases(NamedTuple):
    """One part's cases, each one's ``case_hash`` and their canonical texts joined by
    commas (that part of the text the dataset's version is the hash of)."""

    cases: list[PlainCase]
    hashes: list[str]
    canonical: bytes


class Scored(NamedTuple):
    """One part's cases scored: each case's facts, status and answer, its source
    revision, the canonical texts joined by commas, its rows, and how many of the result
    lines it matched of how many it read."""

    facts: list[tuple[str, str, bool, str, str | None, Status, bool]]
    canonical: bytes
    rows: list[tuple[Any, ...]]
    structured: bool
    matched: int
    read: int


def part_cases(text: str, start: int, stop: int, plain: bool) -> Cases | None:
    """The cases of the lines of ``text[start:stop]`` when each is the usual case line
    (or blank) and no id repeats; None otherwise."""
    quick = quick_line_decoder(None, plain)
    shared: dict[str, str] = {}
    cases: list[PlainCase] = []
    for line in text_lines(text, start, stop):
        raw = quick(line)
        if raw is None:
            if line.strip():
                return None
            continue
        case = plain_case(raw, shared)
        if case is None:
            return None
        cases.append(case)
    if not cases or len({c.id for c in cases}) != len(cases):
        return None
    texts = [plain_canonical_text(case).encode("utf-8") for case in cases]
    hashes = [f"sha256:{hashlib.sha256(t).hexdigest()}" for t in texts]
    return Cases(cases, hashes, b",".join(texts))


def part_scored(made: Cases, lines: Iterable[dict[str, Any]]) -> Scored | None:
    """These cases scored against those of the result lines that name one of them (the
    usual lines: see ``ResultsAside.plain_lines``); None when a line repeats one."""
    cases, hashes = made.cases, made.hashes
    where = {case.id: i for i, case in enumerate(cases)}
    rows: list[tuple[Any, ...] | None] = [None] * len(cases)
    answered = bytearray(len(cases))
    reasons: dict[str, str] = {}
    structured = False
    matched = read = 0
    for line in lines:
        read += 1
        i = where.get(line["id"])
        if i is None:
            continue
        if rows[i] is not None:
            return None
        matched += 1
        row = rows[i] = line_row(cases[i], line, hashes[i], reasons)
        structured = structured or row[GRADER_FIELD] is STRUCTURED_LABEL
        answered[i] = row[OUTCOME_FIELD] == "answer"
    del where
    facts: list[tuple[str, str, bool, str, str | None, Status, bool]] = []
    for i, case in enumerate(cases):
        kept = rows[i]
        if kept is None:
            kept = rows[i] = missing_row(case, hashes[i], reasons)
        facts.append(
            (
                case.id,
                case.slice,
                case.synthetic,
                case.split,
                case.source_revision,
                kept[STATUS_FIELD],
                bool(answered[i]),
            )
        )
    kept_rows = cast("list[tuple[Any, ...]]", rows)  # every case has its row now
    return Scored(facts, made.canonical, kept_rows, structured, matched, read)


def write_rows(rows: list[tuple[Any, ...]], out: IO[bytes], joint: str) -> None:
    """The rows' JSON text (``json_row_pieces``), escaped as ``emit`` escapes a file's."""
    for piece in json_row_pieces(CaseRows(rows), joint):
        out.write(escape_controls(piece).encode("utf-8"))
    out.flush()
