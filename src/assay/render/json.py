"""The JSON report: the schema every other format is rendered from."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from itertools import islice
from typing import Any, cast

import orjson
from pydantic import TypeAdapter

from assay._written import WrittenText
from assay.render._model_json import model_json
from assay.report import ROW_FIELDS, CaseRow, Report, rendered_chunks, rendered_texts, row_of

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
    return cast("Iterator[str]", _json_pieces(report, written=False))


def render_json_written(report: Report) -> Iterator[str | WrittenText]:
    """``render_json_chunks``'s pieces, the rows a second process rendered (a large
    stored run's: see ``StoredRows.rendered_texts``) as the file it wrote them to, which
    ``emit`` copies without reading it."""
    return _json_pieces(report, written=True)


def _json_pieces(report: Report, written: bool) -> Iterator[str | WrittenText]:
    if not report.cases:
        yield json_frame(report)
        return
    head, tail = json_frame_parts(report)
    yield head
    yield from _row_pieces(report.cases, "", written)
    yield tail


def json_frame(report: Report) -> str:
    """The report's JSON text with no case rows."""
    return model_json(report.model_copy(update={"cases": []})) + "\n"


def json_frame_parts(report: Report) -> tuple[str, str]:
    """The text before a report's first case row and after its last (``rows`` between:
    the pieces of ``json_row_pieces``)."""
    head, tail = json_frame(report).split(_EMPTY_CASES)
    return head + '\n  "cases": [\n', "\n  ],\n" + tail


def json_row_pieces(rows: Sequence[CaseRow], joint: str = "") -> Iterator[str]:
    """The rows' text in a report's ``cases`` list, in pieces of a few thousand rows;
    ``joint`` goes before the first (``",\n"``: these rows follow others)."""
    return cast("Iterator[str]", _row_pieces(rows, joint, written=False))


def _row_pieces(rows: Sequence[CaseRow], joint: str, written: bool) -> Iterator[str | WrittenText]:
    for text in _row_chunks(rows, written):
        if isinstance(text, WrittenText):
            yield text  # its rows follow others: each of its pieces begins with ",\n"
        else:
            yield joint + text
        joint = ",\n"


def _row_chunks(rows: Sequence[CaseRow], written: bool) -> Iterator[str | WrittenText]:
    """The rows as they stand in the report's ``cases`` list, a few thousand at a time
    (each row indented two levels, no comma after the last), in order; ``written``: those
    a second process rendered may come as the file it wrote them to.

    Rows held as value tuples (``CaseRows``, rows read from a store) are rendered by
    ``_rows_text``; any others by pydantic.
    """
    chunks = (
        rendered_texts(rows, _ROWS_PER_CHUNK, _rows_text, ",\n")
        if written
        else rendered_chunks(rows, _ROWS_PER_CHUNK, _rows_text)
    )
    if chunks is not None:
        yield from chunks
        return
    whole = iter(rows)
    while part := list(islice(whole, _ROWS_PER_CHUNK)):
        yield _indented(_rows_adapter().dump_json(part, indent=2).decode("utf-8"))


def _rows_text(chunk: list[tuple[Any, ...]]) -> str:
    """``_row_chunks``'s text of rows given as value tuples: encoded by orjson from plain
    dictionaries, which gives pydantic's text for the values of a row's types
    (tests/property/test_json_rows.py) at a fraction of its cost; a chunk holding
    anything else (a value orjson does not encode as pydantic would, such as a date or an
    integer past 64 bits, raises) is dumped by pydantic."""
    try:
        # Nested as in the report, orjson indents the rows as the report has them.
        text = orjson.dumps({"cases": [_plain(v) for v in chunk]}, option=_ORJSON)
    except (TypeError, orjson.JSONEncodeError):
        return _indented(_rows_adapter().dump_json(list(map(row_of, chunk)), indent=2).decode())
    return text[_NESTED_HEAD:-_NESTED_TAIL].decode("utf-8")


_NESTED_HEAD = len(b'{\n  "cases": [\n')
_NESTED_TAIL = len(b"\n  ]\n}")


def _indented(text: str) -> str:
    """An indented JSON list's items ("[\\n  {row},\\n  {row}\\n]") moved two levels in."""
    return "  " + text[2:-2].replace("\n", "\n  ")


_ORJSON = (
    orjson.OPT_INDENT_2
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
"""Anything but JSON's own types makes orjson raise, so pydantic dumps it instead."""
_TRANSCRIPT = ROW_FIELDS.index("transcript")
_JUDGE = ROW_FIELDS.index("judge")
_AGENT = ROW_FIELDS.index("agent")
_TRAJECTORY = ROW_FIELDS.index("trajectory")


def _plain(values: tuple[Any, ...]) -> dict[str, Any]:
    """A row's values as the dictionary of JSON values pydantic dumps it as (a block that
    does not apply left out: see ``does_not_apply``)."""
    row = dict(zip(ROW_FIELDS, values, strict=False))  # every row has every field
    if values[_TRANSCRIPT] is None:
        del row["transcript"]
    judge = values[_JUDGE]
    if judge is None:
        del row["judge"]
    else:
        row["judge"] = {"score": judge.score, "labels": judge.labels}
    if values[_AGENT] is None:
        del row["agent"]
    else:
        row["agent"] = values[_AGENT].model_dump(mode="json")
    if values[_TRAJECTORY] is None:
        del row["trajectory"]
    else:
        row["trajectory"] = values[_TRAJECTORY].model_dump(mode="json")
    return row


@cache
def _rows_adapter() -> TypeAdapter[list[CaseRow]]:
    return TypeAdapter(list[CaseRow])
