"""Each built-in check passes exactly when its docstring says, and says why in one line."""

from __future__ import annotations

from typing import Any

import pytest

from assay.cases import Case
from assay.grading.checks import (
    BUILTIN_CHECKS,
    CheckInput,
    abstention_correct,
    answer_not_empty,
    citation_supports,
    citation_valid,
    contains,
    content_absent,
    content_present,
    format_valid,
    normalize,
)
from assay.outcomes import Abstain, Answer, Error

SNAPSHOT = {
    "standard-window": "Items bought online can be returned within 30 days of delivery.",
    "custom-exception": "Custom-printed products are excluded from returns.",
}


def case(**fields: Any) -> Case:
    base: dict[str, Any] = {
        "id": "E2",
        "slice": "exception",
        "question": "Can a custom-printed product use the standard return window?",
        "source_revision": "returns-v3",
        "expected_behavior": "answer",
        "expected_fact": "custom_excluded",
        "required": [{"fact": "excluded from returns", "variations": ["cannot be returned"]}],
        "disallowed": [{"claim": "standard window applies", "variations": ["within 30 days"]}],
    }
    base.update(fields)
    return Case.model_validate(base)


def answer(
    text: str | None = "x", citations: tuple[str, ...] = (), fact: str | None = None
) -> Answer:
    return Answer(text=text, citations=citations, fact=fact)


def subject(c: Case, outcome: Any, snapshot: Any = SNAPSHOT) -> CheckInput:
    return CheckInput(c, outcome, snapshot, "no source snapshot for revision 'returns-v3'")


def test_normalize_ignores_case_whitespace_and_punctuation() -> None:
    assert normalize("  Custom-PRINTED\tproducts, are EXCLUDED! ") == (
        "custom printed products are excluded"
    )
    assert contains("They’re EXCLUDED   from returns.", "excluded from returns")
    assert not contains("within 300 days", "30 days")
    assert not contains("return within 10 days", "$10")
    assert contains("It costs $10.", "$10")
    assert not contains("anything", "   ")


def test_content_present_passes_on_a_variation_and_fails_naming_the_fact() -> None:
    c = case()
    ok = content_present(subject(c, answer("No: custom items CANNOT be returned.")))
    assert ok.passed is True
    bad = content_present(subject(c, answer("Yes, within 30 days.")))
    assert bad.passed is False
    assert bad.reason == "expected 'excluded from returns' in the answer; not found"


def test_content_present_needs_every_required_fact() -> None:
    c = case(required=["30 days", "15% restocking fee"])
    result = content_present(subject(c, answer("Within 30 days.")))
    assert result.passed is False
    assert "'15% restocking fee'" in result.reason and "'30 days'" not in result.reason


def test_content_present_cannot_judge_an_answer_case_without_required_facts() -> None:
    result = content_present(subject(case(required=[]), answer("anything")))
    assert result.passed is None
    assert "no required facts" in result.reason


def test_content_present_on_abstentions_and_fact_only_answers() -> None:
    assert content_present(subject(case(), Abstain())).passed is False
    abstain_case = case(expected_behavior="abstain", expected_fact=None, required=[])
    assert content_present(subject(abstain_case, Abstain())).passed is True
    assert content_present(subject(case(), answer(None, fact="custom_excluded"))).passed is None


def test_content_absent_fails_on_a_disallowed_variation_in_any_text() -> None:
    c = case()
    bad = content_absent(subject(c, answer("Sure, within 30 days of delivery.")))
    assert bad.passed is False
    assert "'standard window applies' (as 'within 30 days')" in bad.reason
    assert content_absent(subject(c, answer("They are excluded."))).passed is True
    said = Abstain(reason="Not sure, but maybe within 30 days?")
    assert content_absent(subject(c, said)).passed is False
    assert content_absent(subject(case(disallowed=[]), answer("x"))).passed is True


def test_answer_not_empty() -> None:
    c = case()
    assert answer_not_empty(subject(c, answer("  text "))).passed is True
    assert answer_not_empty(subject(c, answer(" \n\t "))).passed is False
    assert answer_not_empty(subject(c, answer(None, fact="f"))).passed is False
    assert answer_not_empty(subject(c, Abstain(reason="No section covers it."))).passed is True
    assert answer_not_empty(subject(c, Abstain())).passed is False
    assert answer_not_empty(subject(c, Error(message="boom"))).passed is False


def test_citation_valid() -> None:
    c = case(requires_citation=True)
    assert citation_valid(subject(c, answer(citations=("custom-exception",)))).passed is True
    stale = citation_valid(subject(c, answer(citations=("custom-exception", "old-section"))))
    assert stale.passed is False
    assert stale.reason == "cited 'old-section' not in the source snapshot at revision 'returns-v3'"
    assert citation_valid(subject(c, answer(citations=()))).passed is False
    assert citation_valid(subject(case(), answer(citations=()))).passed is True
    assert citation_valid(subject(c, Abstain())).passed is False
    assert citation_valid(subject(case(), Abstain())).passed is True


def test_citation_valid_without_a_snapshot_cannot_be_evaluated() -> None:
    result = citation_valid(subject(case(), answer(citations=("x",)), snapshot=None))
    assert result.passed is None
    assert result.reason == "cannot evaluate: no source snapshot for revision 'returns-v3'"
    # Nothing cited and nothing required needs no snapshot.
    assert citation_valid(subject(case(), answer(), snapshot=None)).passed is True


def test_citation_supports() -> None:
    c = case()
    good = answer("Excluded.", citations=("custom-exception",))
    assert citation_supports(subject(c, good)).passed is True
    wrong = citation_supports(subject(c, answer("Excluded.", citations=("standard-window",))))
    assert wrong.passed is False
    assert "no cited section states 'excluded from returns'" in wrong.reason
    assert citation_supports(subject(c, answer("Excluded."))).passed is False
    nothing = citation_supports(subject(c, answer("Excluded."), snapshot=None))
    assert nothing.passed is False and nothing.reason.endswith("(nothing cited)")
    assert citation_supports(subject(c, good, snapshot=None)).passed is None
    assert citation_supports(subject(case(required=[]), good)).passed is None
    assert citation_supports(subject(c, Abstain())).passed is False


def test_abstention_correct() -> None:
    abstain_case = case(expected_behavior="abstain", expected_fact=None, required=[])
    assert abstention_correct(subject(case(), answer())).passed is True
    assert abstention_correct(subject(abstain_case, Abstain())).passed is True
    wrong = abstention_correct(subject(abstain_case, answer()))
    assert (wrong.passed, wrong.reason) == (False, "expected an abstention; answered")
    assert abstention_correct(subject(case(), Abstain())).reason == "expected an answer; abstained"
    assert abstention_correct(subject(case(), Error())).passed is False


def test_format_valid() -> None:
    assert format_valid(subject(case(), answer())).passed is True
    assert format_valid(subject(case(), Abstain())).passed is True
    parse = format_valid(subject(case(), Error(error_class="parse_error", message="not JSON")))
    assert (parse.passed, parse.reason) == (False, "the reply could not be parsed: not JSON")
    assert format_valid(subject(case(), Error(error_class="timeout"))).passed is None


@pytest.mark.parametrize("name", sorted(BUILTIN_CHECKS))
def test_every_builtin_documents_when_it_passes(name: str) -> None:
    doc = BUILTIN_CHECKS[name].__doc__ or ""
    assert doc.startswith("Passes when"), name
