"""The optional rubric fields of a case, and how they enter the dataset version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from assay.cases import (
    RUBRIC_FIELDS,
    Case,
    DisallowedClaim,
    RequiredFact,
    SourceLibrary,
    canonical_record,
    case_hash,
)
from assay.load import load_dataset

ROOT = Path(__file__).resolve().parents[3]
BASE: dict[str, Any] = {
    "id": "E1",
    "slice": "standard",
    "question": "How many days?",
    "source_revision": "returns-v3",
    "expected_behavior": "answer",
    "expected_fact": "return_window_30_days",
}
# The canonical record's fields before cases could carry a rubric.
PRE_RUBRIC_FIELDS = {
    "id", "slice", "question", "messages", "source_revision", "expected_behavior",
    "expected_fact", "accepted_facts", "rationale", "synthetic", "split", "group", "metadata",
}  # fmt: skip


def test_strings_are_shorthand_for_facts_and_claims_without_variations() -> None:
    case = Case.model_validate(
        {**BASE, "required": ["30 days", {"fact": "refund", "variations": ["money back"]}],
         "disallowed": ["60 days"]}
    )  # fmt: skip
    assert case.required == (
        RequiredFact(fact="30 days"),
        RequiredFact(fact="refund", variations=("money back",)),
    )
    assert case.required[1].phrases == ("refund", "money back")
    assert case.disallowed == (DisallowedClaim(claim="60 days"),)


def test_a_case_without_rubric_keeps_its_pre_rubric_canonical_record() -> None:
    record = canonical_record(Case.model_validate(BASE))
    assert set(record) == PRE_RUBRIC_FIELDS
    assert not set(RUBRIC_FIELDS) & set(record)


def test_the_policy_dataset_version_did_not_change() -> None:
    # Pinned before the rubric fields existed: adding them must not re-version datasets.
    dataset = load_dataset(ROOT / "examples" / "policy" / "policy.jsonl")
    assert dataset.version == (
        "sha256:932d94b7066eb43c9322abe6801d6e87e9b47c7daae47e432346a0c5d32c6be0"
    )


@pytest.mark.parametrize(
    "extra",
    [
        {"required": ["30 days"]},
        {"disallowed": ["60 days"]},
        {"requires_citation": True},
        {"sources": {"standard-window": "Return within 30 days."}},
    ],
)
def test_setting_a_rubric_field_changes_the_case_hash(extra: dict[str, Any]) -> None:
    assert case_hash(Case.model_validate({**BASE, **extra})) != case_hash(Case.model_validate(BASE))


def test_provenance_requires_synthetic() -> None:
    provenance = {"source_case": "E1", "method": "flip-check", "check": "citation_valid"}
    with pytest.raises(ValidationError, match="set synthetic: true"):
        Case.model_validate({**BASE, "id": "E1b", "provenance": provenance})
    case = Case.model_validate({**BASE, "id": "E1b", "synthetic": True, "provenance": provenance})
    assert case.provenance is not None and case.provenance.source_case == "E1"


def test_unknown_rubric_keys_are_rejected() -> None:
    with pytest.raises(ValidationError):
        Case.model_validate({**BASE, "required": [{"fact": "x", "variants": ["y"]}]})


def test_inline_sources_win_over_the_library() -> None:
    library = SourceLibrary({"returns-v3": {"a": "library text"}})
    inline = Case.model_validate({**BASE, "sources": {"b": "inline text"}})
    assert library.snapshot_for(inline) == {"b": "inline text"}
    assert library.snapshot_for(Case.model_validate(BASE)) == {"a": "library text"}
    other = Case.model_validate({**BASE, "source_revision": "returns-v4"})
    assert library.snapshot_for(other) is None
    assert library.why_missing(other) == "no source snapshot for revision 'returns-v4'"


def test_a_plain_case_line_gets_every_default_as_validation_gives_it(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps(BASE) + "\n")
    (fast,) = load_dataset(plain).cases
    validated = Case.model_validate(BASE)
    assert fast == validated
    assert fast.expect == () and fast.state is None
    assert canonical_record(fast) == canonical_record(validated)
    assert Case.model_validate_json(fast.model_dump_json()) == fast
