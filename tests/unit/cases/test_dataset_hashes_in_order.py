"""A dataset's hashes in case order and its copy without locations."""

from __future__ import annotations

import pytest

from assay.cases import Case, Dataset
from assay.errors import DuplicateCaseIdError, Location


def _case(case_id: str) -> Case:
    return Case(id=case_id, slice="s", question="q", expected_behavior="abstain")


def test_hashes_in_order_are_the_case_hashes_in_case_order() -> None:
    data = Dataset(name="d", cases=(_case("B"), _case("A"), _case("C")))
    assert data.hashes_in_order == [data.case_hashes[c.id] for c in data.cases]
    assert len(set(data.hashes_in_order)) == 3


def test_a_copy_without_locations_is_the_same_dataset() -> None:
    places = (Location("d.jsonl", 1), Location("d.jsonl", 2))
    data = Dataset(name="d", cases=(_case("A"), _case("B")), locations=places)
    kept = data.without_locations()
    assert kept.locations == () and data.locations == places
    assert kept == data and kept.cases is data.cases
    assert kept.version == data.version and kept.case_hashes == data.case_hashes


def test_repeated_ids_are_still_refused_with_where_they_are() -> None:
    places = (Location("d.jsonl", 1), Location("d.jsonl", 4))
    with pytest.raises(DuplicateCaseIdError, match=r"d\.jsonl:4"):
        Dataset(name="d", cases=(_case("A"), _case("A")), locations=places)
