"""Parsing raw records (already decoded, with their locations) into validated cases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from assay._fast.shared_fields import shared_field_names
from assay._fast.unvalidated import checked_instance
from assay._validation import parse_located, problems_from
from assay.cases._case import Case
from assay.cases._dataset import Dataset
from assay.cases._layout import LAYOUT
from assay.cases._plain import usual_case
from assay.errors import InputFormatError, Location, Problem

RawRecord = tuple[Location, Any]


def parse_case(
    raw: Any, location: Location, shared: dict[str, str] | None = None
) -> Case | list[Problem]:
    """A validated case, or the problems that stop ``raw`` from being one. ``shared``:
    the labels repeated from case to case (slice, expected fact, …) are kept as one string
    object per value, the one this memo holds."""
    if not isinstance(raw, dict):
        return [Problem(f"a case must be an object, got {type(raw).__name__}", location)]
    plain = _plain_case(raw, shared)
    if plain is not None:
        return plain
    try:
        return Case.model_validate(raw)
    except ValidationError as err:
        return problems_from(err, location, Case)


_DEFAULTS: dict[str, Any] = dict.fromkeys(Case.model_fields) | dict(LAYOUT.defaults)


_REPEATED = ("slice", "expected_behavior", "expected_fact", "rationale", "group")
"""The fields whose values repeat from case to case."""


def _plain_case(raw: dict[str, Any], shared: dict[str, str] | None = None) -> Case | None:
    """The case of a record of text fields alone that validation would accept (the usual
    record: ``usual_case`` tells it), made without validating it again; None for any other
    record, which pydantic validates (and names what is wrong with it)."""
    if not usual_case(raw):
        return None
    values = dict(_DEFAULTS)
    values["metadata"] = {}
    values.update(raw)
    if shared is not None:
        share = shared.setdefault
        for name in _REPEATED:
            value = values[name]
            if value is not None:
                values[name] = share(value, value)
    return checked_instance(Case, values, shared_field_names(frozenset(raw)))


def parse_dataset(name: str, records: Iterable[RawRecord], source: str) -> Dataset:
    """A dataset from located raw records; every problem in every record is reported at once.

    Raises ``InputFormatError`` for invalid records (or none at all) and
    ``DuplicateCaseIdError`` when ids repeat. ``records`` is iterated once: each raw
    record may be freed as soon as its case is made.
    """
    shared: dict[str, str] = {}

    def parse(raw: Any, location: Location) -> Case | list[Problem]:
        return parse_case(raw, location, shared)

    cases, locations = parse_located(records, parse, f"{source}: invalid dataset")
    if not cases:
        raise InputFormatError(
            [Problem("the dataset has no cases", Location(source))],
            summary=f"{source}: cannot load dataset",
        )
    # Making the dataset checks its ids (check_unique_ids), naming where each repeat is.
    return Dataset(name=name, cases=tuple(cases), locations=tuple(locations))
