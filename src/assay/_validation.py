"""Turning pydantic validation errors into assay ``Problem`` lines with the field named,
and located raw records into values with every problem reported at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from assay.errors import InputFormatError, Location, Problem, did_you_mean

T = TypeVar("T")


def parse_located(
    records: Iterable[tuple[Location, Any]],
    parse: Callable[[Any, Location], T | list[Problem]],
    summary: str,
) -> tuple[list[T], list[Location | None]]:
    """Every located raw record parsed by ``parse`` (the value, or the problems with it
    located at file, line and field), with the values' locations. Every problem in every
    record is raised at once, as one ``InputFormatError`` headed ``summary``."""
    values: list[T] = []
    locations: list[Location | None] = []
    problems: list[Problem] = []
    for location, raw in records:
        item = parse(raw, location)
        if isinstance(item, list):
            problems.extend(item)
        else:
            values.append(item)
            locations.append(location)
    if problems:
        raise InputFormatError(problems, summary=summary)
    return values, locations


SHOWN_UNKNOWN = 20
"""The most unknown fields of one record named, each with the closest known field."""


def _field_path(loc: Sequence[int | str]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + item)
    return "".join(parts)


def problems_from(
    error: ValidationError, location: Location | None, model: type[BaseModel] | None = None
) -> list[Problem]:
    """One problem per pydantic error, naming the field and saying what is expected."""
    known = sorted(model.model_fields) if model is not None else []
    problems: list[Problem] = []
    unknown = 0
    for err in error.errors(include_url=False):
        kind = err["type"]
        if kind == "extra_forbidden":
            unknown += 1
            if unknown > SHOWN_UNKNOWN:  # a record of 100,000 keys gets one message, quickly
                continue
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p in _UNION_TAGS)]
        field = _field_path(loc)
        if kind == "extra_forbidden":
            name = str(loc[-1]) if loc else field
            hint = did_you_mean(name, known) if len(loc) == 1 else ""
            message = f'unknown field "{field}"{hint}'
            if len(loc) == 1:
                message += "; put free data under metadata"
        elif kind == "missing":
            message = f"{field} is required"
        elif kind == "value_error":
            message = str(err["ctx"]["error"]) if "ctx" in err else err["msg"]
            if field:
                message = f"{field}: {message}"
        elif kind == "literal_error":
            message = f"{field} must be {err['ctx']['expected']} (got {_show(err['input'])})"
        else:
            detail = f"{err['msg'].lower()} (got {_show(err['input'])})"
            message = f"{field}: {detail}" if field else detail
        problems.append(Problem(message, location, field or None))
    if unknown > SHOWN_UNKNOWN:
        more = unknown - SHOWN_UNKNOWN
        problems.append(Problem(f"… and {more:,} more unknown fields", location))
    return problems


# pydantic puts the chosen member's tag into ``loc`` for tagged unions; users never wrote it.
_UNION_TAGS = {"answer", "abstain", "error", "function-after[_labels_agree(), Case]"}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
