"""Cases validate their labels; datasets reject duplicate ids and carry a content version."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from assay import Case, Dataset, DuplicateCaseIdError, summarize
from assay.cases import case_hash, dataset_version


def _case(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "E1",
        "slice": "standard",
        "question": "q",
        "expected_behavior": "answer",
        "expected_fact": "f",
    }
    return base | fields


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"expected_fact": None}, 'expected_fact is required when expected_behavior is "answer"'),
        ({"expected_fact": ""}, 'expected_fact is required when expected_behavior is "answer"'),
        (
            {"expected_behavior": "abstain"},
            'expected_fact must be null when expected_behavior is "abstain"',
        ),
        (
            {"expected_behavior": "abstain", "expected_fact": None, "accepted_facts": ["x"]},
            "accepted_facts must be empty",
        ),
        ({"question": None}, "a case needs a question"),
        ({"note": "x"}, "Extra inputs are not permitted"),
    ],
)
def test_inconsistent_labels_are_rejected(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Case.model_validate(_case(**fields))


def test_facts_are_the_expected_and_accepted_ones() -> None:
    case = Case.model_validate(_case(accepted_facts=["g"]))
    assert case.facts == {"f", "g"}
    assert (
        Case.model_validate(_case(expected_behavior="abstain", expected_fact=None)).facts == set()
    )


def test_dataset_rejects_duplicate_ids() -> None:
    case = Case.model_validate(_case())
    with pytest.raises(DuplicateCaseIdError, match="Duplicate case ID: E1"):
        Dataset(name="d", cases=(case, case))


def test_summarize_rejects_duplicate_ids_in_a_plain_list() -> None:
    case = Case.model_validate(_case())
    with pytest.raises(DuplicateCaseIdError):
        summarize([case, case], {})


def test_version_is_the_content_hash_of_the_cases_in_order() -> None:
    a = Case.model_validate(_case())
    b = Case.model_validate(_case(id="E2"))
    explicit = Case.model_validate(_case(synthetic=False, split="dev", metadata={}))
    assert Dataset("x", (a, b)).version == dataset_version([a, b])
    assert Dataset("x", (a, b)).version != Dataset("x", (b, a)).version
    assert Dataset("x", (a,)).version == Dataset("other name", (explicit,)).version
    assert case_hash(a) == case_hash(explicit)
    assert case_hash(a).startswith("sha256:") and len(case_hash(a)) == 71
