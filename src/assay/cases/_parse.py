"""Parsing raw records (already decoded, with their locations) into validated cases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from assay._validation import parse_located, problems_from
from assay.cases._case import Case
from assay.cases._dataset import Dataset, check_unique_ids
from assay.errors import InputFormatError, Location, Problem

RawRecord = tuple[Location, Any]


def parse_case(raw: Any, location: Location) -> Case | list[Problem]:
    """A validated case, or the problems that stop ``raw`` from being one."""
    if not isinstance(raw, dict):
        return [Problem(f"a case must be an object, got {type(raw).__name__}", location)]
    try:
        return Case.model_validate(raw)
    except ValidationError as err:
        return problems_from(err, location, Case)


def parse_dataset(name: str, records: Iterable[RawRecord], source: str) -> Dataset:
    """A dataset from located raw records; every problem in every record is reported at once.

    Raises ``InputFormatError`` for invalid records (or none at all) and
    ``DuplicateCaseIdError`` when ids repeat. ``records`` is iterated once: each raw
    record may be freed as soon as its case is made.
    """
    cases, locations = parse_located(records, parse_case, f"{source}: invalid dataset")
    if not cases:
        raise InputFormatError(
            [Problem("the dataset has no cases", Location(source))],
            summary=f"{source}: cannot load dataset",
        )
    check_unique_ids(cases, locations)
    return Dataset(name=name, cases=tuple(cases), locations=tuple(locations))
