"""A dataset's stored text: the canonical JSON of its full case records, made once for
the runs that share it while they are created, and not held after."""

from __future__ import annotations

from tests.unit.cases._make import case

from assay.cases import Dataset, canonical_json


def _dataset() -> Dataset:
    return Dataset("d", (case("a", "q1"), case("b", "q2", slice="other")))


def test_the_text_is_the_canonical_json_of_the_full_records() -> None:
    dataset = _dataset()
    expected = canonical_json([c.model_dump(mode="json") for c in dataset.cases])
    assert dataset.cases_json() == expected
    assert '"rationale":"because"' in expected  # every field, defaults included


def test_it_is_made_once_while_shared_and_let_go_after() -> None:
    dataset = _dataset()
    assert dataset.cases_json() is not dataset.cases_json()  # not shared: not kept
    with dataset.sharing_json():
        first = dataset.cases_json()
        assert dataset.cases_json() is first
    assert "_cases_json" not in vars(dataset)
    assert dataset.cases_json() == first and dataset.cases_json() is not first
