"""Each validate rule, on a small dataset that breaks it (and only it)."""

from __future__ import annotations

from collections.abc import Sequence

from tests.unit.cases._make import case

from assay.cases import Case, Finding, SourceLibrary, find_clusters, lint_cases
from assay.errors import Location

SOURCES = SourceLibrary(
    revisions={"v3": {"window": "Items can be returned within 30 days of delivery."}}
)


def lint(cases: Sequence[Case], sources: SourceLibrary = SOURCES, strict: bool = False):
    locations = [Location("d.jsonl", i + 1) for i in range(len(cases))]
    return lint_cases(cases, locations, find_clusters(cases), sources, strict)


def codes(found: Sequence[Finding]) -> list[tuple[str, str | None, int | None]]:
    return [(f.code, f.case_id, f.location.line if f.location else None) for f in found]


def test_a_clean_dataset_has_no_findings() -> None:
    cases = [case("A", "How long is the return window?"), case("B", "Do you gift wrap?")]
    assert lint(cases) == ()


def test_duplicate_ids_name_both_lines() -> None:
    found = lint([case("A", "First question here?"), case("A", "Another one entirely?")])
    assert codes(found) == [("duplicate-id", "A", 2)]
    assert "d.jsonl:1" in found[0].message


def test_exact_and_near_duplicates() -> None:
    found = lint(
        [
            case("A", "How many days do I have to return an item I bought online?"),
            case("B", "how many days do i have to return an item i bought online"),
            case("C", "How many days do I have to return an item I bought on-line?"),
        ]
    )
    assert codes(found) == [("exact-duplicate", "B", 2), ("near-duplicate", "C", 3)]
    assert [f.severity for f in found] == ["error", "warning"]


def test_a_synthetic_copy_of_its_source_case_is_not_a_duplicate() -> None:
    source = case("A", "How long is the return window?")
    copy = case(
        "A.flip",
        "How long is the return window?",
        synthetic=True,
        provenance={"source_case": "A", "method": "flip-check"},
    )
    assert lint([source, copy]) == ()


def test_unknown_source_revision() -> None:
    found = lint([case("A", "How long is the window?", source_revision="v9")])
    assert codes(found) == [("unknown-source-revision", "A", 1)]
    assert "v3" in found[0].message


def test_a_required_fact_no_section_states() -> None:
    ok = case("A", "How long is the window?", source_revision="v3", required=["30 days"])
    bad = case("B", "How long is the refund?", source_revision="v3", required=["60 days"])
    assert codes(lint([ok, bad])) == [("unsupported-fact", "B", 2)]


def test_missing_rationale_is_a_warning_and_an_error_when_strict() -> None:
    cases = [case("A", "How long is the window?", rationale=None)]
    assert [(f.code, f.severity) for f in lint(cases)] == [("missing-rationale", "warning")]
    assert [f.severity for f in lint(cases, strict=True)] == ["error"]


def test_generated_cases_must_be_flagged_synthetic() -> None:
    found = lint([case("A", "How long is the window?", metadata={"generator": "gpt"})])
    assert codes(found) == [("unflagged-synthetic", "A", 1)]
    flagged = case("B", "How long is it?", metadata={"generated": True}, synthetic=True)
    assert lint([flagged]) == ()


def test_an_accepted_alternative_that_contradicts_another_case() -> None:
    a = case("A", "Can I return a mug?", expected_fact="custom_excluded")
    b = case(
        "B", "Can I return a mug?", expected_fact="custom_excluded", accepted_facts=["window_30"]
    )
    found = lint([a, b])
    assert ("conflicting-alternative", "B", 2) in codes(found)


def test_the_same_question_with_another_label() -> None:
    a = case("A", "Do you gift wrap?", expected_behavior="abstain")
    b = case("B", "Do you gift wrap?", expected_fact="gift_wrap_free")
    assert ("conflicting-label", "B", 2) in codes(lint([a, b]))


def test_leakage_names_each_held_out_case_and_the_dev_side() -> None:
    cases = [
        case("A", "First conversation turn about returns?", group="g1"),
        case("B", "Second conversation turn, shipping?", group="g1", split="heldout"),
        case("C", "How many days do I have to return an item I bought online?"),
        case("D", "How many days do I have to return an item I bought on-line?", split="heldout"),
    ]
    found = [f for f in lint(cases) if f.code == "leakage"]
    assert codes(found) == [("leakage", "B", 2), ("leakage", "D", 4)]
    assert "group 'g1'" in found[0].message and "A" in found[0].message
    assert "near-duplicate cluster of C" in found[1].message


def test_candidates_from_a_run_are_refused_until_reviewed() -> None:
    pending = case("A", "How long?", metadata={"review": "pending", "origin": "run R case X"})
    assert codes(lint([pending])) == [("unreviewed", "A", 1)]
    done = case("A", "How long?", metadata={"review": "done", "origin": "run R case X"})
    assert lint([done]) == ()


def test_findings_carry_a_fix_and_serialize() -> None:
    (finding,) = lint([case("A", "How long is the window?", source_revision="v9")])
    data = finding.as_json()
    assert data["code"] == "unknown-source-revision"
    assert data["location"] == "d.jsonl:1"
    assert data["severity"] == "error" and data["fix"]
