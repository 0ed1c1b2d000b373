"""Parsing raw records (already decoded, with their locations) into validated cases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from assay._compact import checked_instance, shared_field_names
from assay._validation import parse_located, problems_from
from assay.cases._case import Case
from assay.cases._dataset import Dataset, check_unique_ids
from assay.errors import InputFormatError, Location, Problem

RawRecord = tuple[Location, Any]


def parse_case(raw: Any, location: Location) -> Case | list[Problem]:
    """A validated case, or the problems that stop ``raw`` from being one."""
    if not isinstance(raw, dict):
        return [Problem(f"a case must be an object, got {type(raw).__name__}", location)]
    plain = _plain_case(raw)
    if plain is not None:
        return plain
    try:
        return Case.model_validate(raw)
    except ValidationError as err:
        return problems_from(err, location, Case)


_TEXT = (str, type(None))
_PLAIN_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "slice": str,
    "question": _TEXT,
    "source_revision": _TEXT,
    "expected_behavior": str,
    "expected_fact": _TEXT,
    "rationale": _TEXT,
    "synthetic": bool,
    "split": str,
    "group": _TEXT,
}
_FIELD_ORDER = tuple(Case.model_fields)


def _plain_case(raw: dict[str, Any]) -> Case | None:
    """The case of a record of text fields alone that validation would accept (the usual
    record), made without validating it again; None for any other record, which pydantic
    validates (and names what is wrong with it)."""
    for key, value in raw.items():
        kind = _PLAIN_FIELDS.get(key)
        if kind is None or not isinstance(value, kind) or type(value) not in _EXACT:
            return None
    behavior = raw.get("expected_behavior")
    fact = raw.get("expected_fact")
    if (
        not raw.get("id")
        or not raw.get("slice")
        or raw.get("question") is None
        or raw.get("split", "dev") not in ("dev", "heldout")
        or not (fact if behavior == "answer" else behavior == "abstain" and fact is None)
    ):
        return None
    values = dict.fromkeys(_FIELD_ORDER)
    values |= {"accepted_facts": (), "synthetic": False, "split": "dev", "metadata": {}}
    values |= {"required": (), "disallowed": (), "requires_citation": False}
    values.update(raw)
    return checked_instance(Case, values, shared_field_names(frozenset(raw)))


_EXACT = frozenset({str, bool, type(None)})


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
