"""The JSON report: the schema every other format is rendered from."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from itertools import islice

from pydantic import TypeAdapter

from assay.report._model import CaseRow, Report

# With indent=2 a top-level key starts a line with two spaces, and no JSON string holds a
# raw newline, so this text occurs exactly once: where the case rows go.
_EMPTY_CASES = '\n  "cases": [],\n'
_ROWS_PER_CHUNK = 2_000


def render_json(report: Report) -> str:
    """The report as indented JSON text (schema: docs/report.schema.json)."""
    return "".join(render_json_chunks(report))


def render_json_chunks(report: Report) -> Iterator[str]:
    """``render_json``'s text in pieces of a few thousand case rows: a report of a million
    rows is written without its whole text (or its bytes) ever in memory."""
    frame = report.model_copy(update={"cases": []}).model_dump_json(indent=2) + "\n"
    if not report.cases:
        yield frame
        return
    head, tail = frame.split(_EMPTY_CASES)
    yield head + '\n  "cases": [\n'
    # Read in order, a chunk at a time: rows read from a store are made as they come.
    rows = iter(report.cases)
    joint = ""
    while part := list(islice(rows, _ROWS_PER_CHUNK)):
        # One dump per chunk: "[\n  {row},\n  {row}\n]", each line moved two levels in.
        dumped = _rows_adapter().dump_json(part, indent=2).decode("utf-8")
        yield joint + "  " + dumped[2:-2].replace("\n", "\n  ")
        joint = ",\n"
    yield "\n"
    yield "  ],\n" + tail


@cache
def _rows_adapter() -> TypeAdapter[list[CaseRow]]:
    return TypeAdapter(list[CaseRow])
