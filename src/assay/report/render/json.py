"""The JSON report: the schema every other format is rendered from."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from pydantic import TypeAdapter

from assay.report._model import CaseRow, Report
from assay.report._rows import CaseRows

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
    if not report.cases:
        yield report.model_dump_json(indent=2) + "\n"
        return
    frame = report.model_copy(update={"cases": []}).model_dump_json(indent=2) + "\n"
    head, tail = frame.split(_EMPTY_CASES)
    yield head + '\n  "cases": [\n'
    rows = report.cases
    for start in range(0, len(rows), _ROWS_PER_CHUNK):
        stop = start + _ROWS_PER_CHUNK
        written = rows.json_lines(start, stop) if isinstance(rows, CaseRows) else None
        if written is None:
            written = _rows_adapter().dump_json(rows[start:stop], indent=2)
        # One dump per chunk: "[\n  {row},\n  {row}\n]", each line moved two levels in.
        dumped = written.decode("utf-8")
        text = "  " + dumped[2:-2].replace("\n", "\n  ")
        yield text + (",\n" if start + _ROWS_PER_CHUNK < len(rows) else "\n")
    yield "  ],\n" + tail


@cache
def _rows_adapter() -> TypeAdapter[list[CaseRow]]:
    return TypeAdapter(list[CaseRow])
