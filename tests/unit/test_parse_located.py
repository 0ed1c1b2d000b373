"""parse_located: one loop turns located raw records into values, or every problem at once."""

from __future__ import annotations

from typing import Any

import pytest

from assay._validation import parse_located
from assay.errors import InputFormatError, Location, Problem


def _number(raw: Any, where: Location) -> int | list[Problem]:
    if isinstance(raw, int):
        return raw
    return [Problem(f"expected a number, got {raw!r}", where, "value")]


def test_values_come_back_with_their_locations() -> None:
    records = [(Location("n.jsonl", 1), 4), (Location("n.jsonl", 3), 5)]
    assert parse_located(records, _number, "n.jsonl: invalid") == (
        [4, 5],
        [Location("n.jsonl", 1), Location("n.jsonl", 3)],
    )


def test_every_bad_record_is_reported_at_once_with_file_line_and_field() -> None:
    records = [(Location("n.jsonl", i), raw) for i, raw in enumerate([1, "x", 2, None], start=1)]
    with pytest.raises(InputFormatError) as caught:
        parse_located(records, _number, "n.jsonl: invalid numbers")
    err = caught.value
    assert [(p.location, p.field) for p in err.problems] == [
        (Location("n.jsonl", 2), "value"),
        (Location("n.jsonl", 4), "value"),
    ]
    assert "n.jsonl: invalid numbers" in str(err)
    assert "n.jsonl:2" in str(err) and "n.jsonl:4" in str(err)
